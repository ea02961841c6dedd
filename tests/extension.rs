//! The extension kinds (`fn.kpt.dev/v1alpha1` PackageVariant and PackageVariantSet) through
//! the binary: Porch's fields behave as under Porch's kinds, the extension's fields are refused
//! under Porch's apiVersion with a hint, and point-keyed injection (`spec.injection`) fills
//! each point from its own source, with every error of the design a test here.

mod common;

use common::{resource_list, results_section, run, variants, KPTFILE};

/// An injection point `ConfigMap/<name>` in `<name>.yaml` with a placeholder value.
fn point(name: &str, mode: &str) -> String {
    format!(
        "apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  annotations:
    kpt.dev/config-injection: {mode}
    config.kubernetes.io/path: {name}.yaml
data:
  db: placeholder
"
    )
}

/// An in-cluster ConfigMap `<name>` in `namespace` with `db: <value>`.
fn in_cluster(name: &str, namespace: &str, value: &str) -> String {
    format!(
        "apiVersion: v1
kind: ConfigMap
metadata:
  name: {name}
  namespace: {namespace}
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
data:
  db: {value}
"
    )
}

/// A Published PackageRevision and its PackageRevisionResources (shared/databases at
/// `revision`), with one ConfigMap `us-east1` whose `primary` is `value`.
fn package_revision(revision: i64, value: &str, namespace: &str) -> [String; 2] {
    let meta = format!(
        "  name: shared.databases.v{revision}
  namespace: {namespace}
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
"
    );
    [
        format!(
            "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
{meta}spec: {{repository: shared, packageName: databases, revision: {revision}, lifecycle: Published}}
"
        ),
        format!(
            "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevisionResources
metadata:
{meta}spec:
  repository: shared
  packageName: databases
  revision: {revision}
  resources:
    Kptfile: |
      apiVersion: kpt.dev/v1
      kind: Kptfile
      metadata:
        name: databases
    dbs.yaml: |
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: us-east1
      data:
        primary: {value}
      ---
      apiVersion: v1
      kind: ConfigMap
      metadata:
        name: eu
      data:
        primary: pg.eu
"
        ),
    ]
}

/// An extension PackageVariant `my-pv` with `spec` lines appended (indented by two).
fn pv(api_version: &str, extra: &str) -> String {
    format!(
        "apiVersion: {api_version}
kind: PackageVariant
metadata:
  name: my-pv
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
  downstream: {{repo: deployments, package: base}}
{extra}"
    )
}

const EXT: &str = "fn.kpt.dev/v1alpha1";
const PORCH: &str = "config.porch.kpt.dev/v1alpha1";

/// The three points and three sources of the design's example.
fn three_sources() -> Vec<String> {
    let [pr, prr] = package_revision(3, "pg.us-east1", "default");
    vec![
        KPTFILE.to_string(),
        point("regional-endpoints", "required"),
        point("team", "required"),
        point("db-endpoints", "optional"),
        in_cluster("us-east1-endpoints", "default", "db.us-east1.example.com"),
        pr,
        prr,
    ]
}

const THREE_ENTRIES: &str = "  injection:
  - bindingPoint: regional-endpoints
    clusterResource: {name: us-east1-endpoints}
  - bindingPoint: team
    directResource: {data: {chargeCode: cd}}
  - bindingPoint: db-endpoints
    packageResource: {repo: shared, package: databases, name: us-east1}
";

/// `rl` with `extra` items appended to its items.
fn with_items(rl: &str, extra: &[String]) -> String {
    let extra: Vec<&str> = extra.iter().map(String::as_str).collect();
    let list = resource_list(&extra, "");
    let items = &list[list.find("items:\n").map_or(0, |i| i + 7)..];
    let at = rl.find("\nfunctionConfig:").map_or(rl.len(), |i| i + 1);
    format!("{}{items}{}", &rl[..at], &rl[at..])
}

fn go(items: &[String], config: &str) -> common::Run {
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    run(&resource_list(&items, config))
}

/// Exit 1 and an error result with `message` (a part of it) at `field`.
fn assert_error(out: &common::Run, message: &str, field: &str) {
    assert_eq!(out.code, 1, "{}", out.stdout);
    // YAML's single quotes write a quote twice.
    let results = results_section(&out.stdout).replace("''", "'");
    assert!(results.contains(message), "{message:?} not in\n{results}");
    assert!(
        results.contains(&format!("path: {field}\n"))
            || results.contains(&format!("path: '{field}'\n")),
        "{field} not in\n{results}"
    );
}

#[test]
fn three_points_of_one_kind_each_from_its_own_source() {
    let out = go(&three_sources(), &pv(EXT, THREE_ENTRIES));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let s = &out.stdout;
    for want in [
        "      kpt.dev/injected-resource: cluster:ConfigMap/us-east1-endpoints\n",
        "    db: db.us-east1.example.com\n",
        "      kpt.dev/injected-resource: inline:PackageVariant/my-pv\n",
        "    chargeCode: cd\n",
        "      kpt.dev/injected-resource: package:shared/databases@3:ConfigMap/us-east1\n",
        "    primary: pg.us-east1\n",
        "    - conditionType: config.injection.ConfigMap.regional-endpoints\n",
        "    - conditionType: config.injection.ConfigMap.team\n",
        "revision 3 (the highest Published revision given)",
    ] {
        assert!(s.contains(want), "{want:?} not in\n{s}");
    }
    // The optional point has no readiness gate.
    assert!(!s.contains("- conditionType: config.injection.ConfigMap.db-endpoints"));
    // A second run on the output (with the sources again: objects fed through stdin are not
    // written out) changes nothing.
    let again = run(&with_items(&out.stdout, &three_sources()[4..]));
    assert_eq!(again.code, 0);
    assert_eq!(
        common::items_section(&again.stdout),
        common::items_section(&out.stdout)
    );
}

#[test]
fn a_fixed_revision_is_read_and_the_highest_published_floats() {
    let mut items = three_sources();
    let [pr4, prr4] = package_revision(4, "pg.v4", "default");
    items.extend([pr4, prr4]);
    let out = go(&items, &pv(EXT, THREE_ENTRIES));
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stdout.contains("    primary: pg.v4\n"),
        "{}",
        out.stdout
    );
    assert!(out
        .stdout
        .contains("revision 4 (the highest Published revision given)"));
    let fixed = THREE_ENTRIES.replace("name: us-east1}", "name: us-east1, revision: 3}");
    let out = go(&items, &pv(EXT, &fixed));
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.contains("    primary: pg.us-east1\n"));
    assert!(out
        .stdout
        .contains("package:shared/databases@3:ConfigMap/us-east1"));
}

#[test]
fn points_not_bound_keep_porchs_injectors() {
    let mut items = three_sources();
    items.push(in_cluster("db-endpoints", "default", "from-injector"));
    let entries = "  injectors:\n  - name: db-endpoints\n  - name: team\n  injection:\n  - bindingPoint: regional-endpoints\n    clusterResource: {name: us-east1-endpoints}\n";
    let out = go(&items, &pv(EXT, entries));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let s = &out.stdout;
    // The bound point from its entry only, although the injector would match it too; the
    // other points of the kind from the first injector that matches, as under Porch.
    assert!(s.contains("kpt.dev/injected-resource: cluster:ConfigMap/us-east1-endpoints"));
    assert_eq!(
        s.matches("      kpt.dev/injected-resource: db-endpoints\n")
            .count(),
        2,
        "{s}"
    );
    assert!(s.contains("message: injected resource \"db-endpoints\" from cluster\n"));
    assert!(s.contains("- message: 'required injection point ConfigMap/team: injected data of in-cluster ConfigMap \"db-endpoints\"'"));
}

#[test]
fn the_extension_kind_without_extension_fields_behaves_as_porchs() {
    let items = [
        KPTFILE.to_string(),
        common::PACKAGE_CONTEXT.to_string(),
        point("endpoints", "required"),
        in_cluster("endpoints", "default", "x"),
    ];
    let spec = "  packageContext: {data: {a: b}}\n  injectors:\n  - name: endpoints\n";
    let porch = go(&items, &pv(PORCH, spec));
    let ext = go(&items, &pv(EXT, spec));
    assert_eq!(porch.code, 0, "{}", porch.stdout);
    assert_eq!(ext.code, porch.code);
    assert_eq!(
        common::items_section(&ext.stdout),
        common::items_section(&porch.stdout)
    );
    assert_eq!(
        results_section(&ext.stdout).replace(EXT, PORCH),
        results_section(&porch.stdout)
    );
}

#[test]
fn extension_fields_under_porchs_api_version_are_refused_with_a_hint() {
    let out = go(&three_sources(), &pv(PORCH, THREE_ENTRIES));
    assert_error(
        &out,
        "unknown field \"injection\": injection is an extension of this function, not a field of Porch's PackageVariant; write apiVersion: fn.kpt.dev/v1alpha1 to use it",
        "spec.injection",
    );
    // Nothing changed.
    assert!(!out.stdout.contains("kpt.dev/injected-resource"));
}

#[test]
fn an_unknown_binding_point_has_did_you_mean() {
    let entries = THREE_ENTRIES.replace("bindingPoint: team", "bindingPoint: teams");
    let out = go(&three_sources(), &pv(EXT, &entries));
    assert_error(
        &out,
        "no injection point named \"teams\" in the package; did you mean \"team\"?",
        "spec.injection[1].bindingPoint",
    );
    let entries = THREE_ENTRIES.replace("bindingPoint: team", "bindingPoint: zzz");
    let out = go(&three_sources(), &pv(EXT, &entries));
    assert_error(
        &out,
        "no injection point named \"zzz\" in the package; its points are db-endpoints, regional-endpoints, team",
        "spec.injection[1].bindingPoint",
    );
}

#[test]
fn two_points_of_one_name_are_an_error_naming_both_files() {
    let mut items = three_sources();
    items.push(
        "apiVersion: hr.example.com/v1alpha1
kind: Team
metadata:
  name: team
  annotations:
    kpt.dev/config-injection: optional
    config.kubernetes.io/path: hr/team.yaml
spec: {}
"
        .to_string(),
    );
    let out = go(&items, &pv(EXT, THREE_ENTRIES));
    assert_error(
        &out,
        "two injection points are named \"team\": Team/team (hr/team.yaml) and ConfigMap/team (team.yaml); binding points are named by metadata.name, so rename one",
        "metadata.name",
    );
}

#[test]
fn each_entry_gives_exactly_one_source() {
    let two = THREE_ENTRIES.replace(
        "    directResource: {data: {chargeCode: cd}}\n",
        "    directResource: {data: {chargeCode: cd}}\n    clusterResource: {name: x}\n",
    );
    let out = go(&three_sources(), &pv(EXT, &two));
    assert_error(
        &out,
        "gives clusterResource and directResource: give exactly one source per entry",
        "spec.injection[1]",
    );
    let none = THREE_ENTRIES.replace("    directResource: {data: {chargeCode: cd}}\n", "");
    let out = go(&three_sources(), &pv(EXT, &none));
    assert_error(
        &out,
        "gives no source: give exactly one of clusterResource, directResource and packageResource",
        "spec.injection[1]",
    );
}

#[test]
fn a_source_of_another_kind_is_refused() {
    let entries = THREE_ENTRIES.replace(
        "directResource: {data: {chargeCode: cd}}",
        "directResource: {apiVersion: hr.example.com/v1alpha1, kind: Team, spec: {chargeCode: cd}}",
    );
    let out = go(&three_sources(), &pv(EXT, &entries));
    assert_error(
        &out,
        "kind \"Team\" does not match injection point \"team\" (v1 ConfigMap): leave it out or write \"ConfigMap\"",
        "spec.injection[1].directResource.kind",
    );
    let r = results_section(&out.stdout);
    assert!(
        r.contains("apiVersion \"hr.example.com/v1alpha1\" does not match"),
        "{r}"
    );
    assert!(
        r.contains("injection point \"team\" (v1 ConfigMap) takes data, not spec"),
        "{r}"
    );
    let entries = THREE_ENTRIES.replace(
        "{repo: shared, package: databases, name: us-east1}",
        "{repo: shared, package: databases, name: us-east1, kind: Secret}",
    );
    let out = go(&three_sources(), &pv(EXT, &entries));
    assert_error(
        &out,
        "kind \"Secret\" does not match injection point \"db-endpoints\" (v1 ConfigMap)",
        "spec.injection[2].packageResource.kind",
    );
}

#[test]
fn a_missing_source_leaves_a_required_gate_false_naming_what_to_pass() {
    let items: Vec<String> = three_sources()
        .into_iter()
        .filter(|i| !i.contains("us-east1-endpoints") && !i.contains("PackageRevision"))
        .collect();
    let out = go(&items, &pv(EXT, THREE_ENTRIES));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let s = &out.stdout;
    // Required: a warning, the condition False, the gate in place.
    assert!(s.contains("- message: 'required injection point ConfigMap/regional-endpoints not filled: no in-cluster ConfigMap \"us-east1-endpoints\" in namespace \"default\": pass it as an item annotated config.porch.kpt.dev/in-cluster: \"true\" (kubectl get configmap us-east1-endpoints -n default -o yaml)'\n  severity: warning\n"), "{s}");
    assert!(
        s.contains(
            "    - type: config.injection.ConfigMap.regional-endpoints\n      status: \"False\"\n"
        ),
        "{s}"
    );
    assert!(s.contains("    - conditionType: config.injection.ConfigMap.regional-endpoints\n"));
    // Optional: info, no gate; the message names what to pass.
    assert!(s.contains("optional injection point ConfigMap/db-endpoints not filled: no Published PackageRevision of shared/databases among the in-cluster items of namespace \"default\": pass them (kubectl get packagerevisions -n default -o yaml"), "{s}");
    assert!(s.contains("  severity: info\n"));
    let fixed = THREE_ENTRIES.replace("name: us-east1}", "name: us-east1, revision: 7}");
    let out = go(&items, &pv(EXT, &fixed));
    assert!(out.stdout.contains("no PackageRevisionResources of shared/databases revision 7 among the in-cluster items of namespace \"default\": pass it (kubectl get packagerevisionresources -n default -o yaml"), "{}", out.stdout);
    let other = THREE_ENTRIES.replace("name: us-east1}", "name: nowhere}");
    let out = go(&three_sources(), &pv(EXT, &other));
    assert!(
        out.stdout.contains(
            "package shared/databases revision 3 has no ConfigMap \"nowhere\" at apiVersion v1"
        ),
        "{}",
        out.stdout
    );
}

#[test]
fn a_source_from_another_namespace_is_an_error() {
    let items: Vec<String> = three_sources()
        .into_iter()
        .map(|i| {
            i.replace(
                "name: us-east1-endpoints\n  namespace: default",
                "name: us-east1-endpoints\n  namespace: team-b",
            )
        })
        .collect();
    let out = go(&items, &pv(EXT, THREE_ENTRIES));
    assert_error(
        &out,
        "in-cluster ConfigMap \"us-east1-endpoints\" is in namespace \"team-b\", not the PackageVariant's namespace \"default\": a variant injects only from its own namespace",
        "metadata.namespace",
    );
    let mut items = three_sources();
    items.retain(|i| !i.contains("PackageRevision"));
    items.extend(package_revision(3, "pg", "team-b"));
    let fixed = THREE_ENTRIES.replace("name: us-east1}", "name: us-east1, revision: 3}");
    let out = go(&items, &pv(EXT, &fixed));
    assert_error(
        &out,
        "PackageRevisionResources shared.databases.v3 of shared/databases is in namespace \"team-b\", not the PackageVariant's namespace \"default\"",
        "metadata.namespace",
    );
}

#[test]
fn a_namespaceless_cluster_object_is_refused_when_the_variant_names_its_namespace() {
    let items: Vec<String> = three_sources()
        .into_iter()
        .map(|i| {
            i.replace(
                "name: us-east1-endpoints\n  namespace: default\n",
                "name: us-east1-endpoints\n",
            )
        })
        .collect();
    let config =
        pv(EXT, THREE_ENTRIES).replace("  name: my-pv\n", "  name: my-pv\n  namespace: default\n");
    let out = go(&items, &config);
    assert_error(
        &out,
        "in-cluster object ConfigMap/us-east1-endpoints has no namespace",
        "metadata.namespace",
    );
}

#[test]
fn one_entry_per_point() {
    let entries =
        format!("{THREE_ENTRIES}  - bindingPoint: team\n    directResource: {{data: {{a: b}}}}\n");
    let out = go(&three_sources(), &pv(EXT, &entries));
    assert_error(
        &out,
        "binds injection point \"team\", which spec.injection[1] binds already: one entry per point",
        "spec.injection[3].bindingPoint",
    );
}

// ------------------------------------------------------------------ owned resources

const OWNED_ENTRIES: &str =
    "  - directResource: {apiVersion: v1, kind: ConfigMap, metadata: {name: extra}, data: {a: b}}
  - packageResource: {repo: shared, package: databases, apiVersion: v1, kind: ConfigMap, name: eu}
";

/// The output's ResourceList run again with the sources and another functionConfig.
fn again(out: &common::Run, config: &str) -> common::Run {
    let rl = &out.stdout;
    let items = &rl[..rl.find("\nfunctionConfig:").map_or(rl.len(), |i| i + 1)];
    let mut next = with_items(items, &three_sources()[4..]);
    next.push_str("functionConfig:\n");
    for line in config.lines() {
        next.push_str(&format!("  {line}\n"));
    }
    run(&next)
}

#[test]
fn resources_without_a_binding_point_are_owned_added_updated_and_removed() {
    let config = pv(EXT, &format!("{THREE_ENTRIES}{OWNED_ENTRIES}"));
    let out = go(&three_sources(), &config);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let s = &out.stdout;
    assert!(s.contains("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: extra\n    annotations:\n      package-variant.fn.kpt.dev/owner: my-pv\n      config.kubernetes.io/path: injected/configmap-extra.yaml\n      internal.config.kubernetes.io/path: injected/configmap-extra.yaml\n  data:\n    a: b\n"), "{s}");
    assert!(s.contains("    name: eu\n    annotations:\n      package-variant.fn.kpt.dev/owner: my-pv\n      config.kubernetes.io/path: injected/configmap-eu.yaml\n"), "{s}");
    assert!(s.contains("added ConfigMap \"extra\" to the package (injected/configmap-extra.yaml), owned by PackageVariant \"my-pv\" (spec.injection[3])"));
    // The next run changes nothing.
    let same = again(&out, &config);
    assert_eq!(same.code, 0, "{}", same.stdout);
    assert_eq!(
        common::items_section(&same.stdout),
        common::items_section(&out.stdout)
    );
    // An entry's new value updates its resource in place.
    let changed = config.replace("data: {a: b}", "data: {a: c}");
    let updated = again(&out, &changed);
    assert_eq!(updated.code, 0, "{}", updated.stdout);
    let u = &updated.stdout;
    assert!(u.contains("    name: extra\n    annotations:\n      package-variant.fn.kpt.dev/owner: my-pv\n      config.kubernetes.io/path: injected/configmap-extra.yaml\n      internal.config.kubernetes.io/path: injected/configmap-extra.yaml\n  data:\n    a: c\n"), "{u}");
    assert!(u.contains("updated ConfigMap \"extra\" (injected/configmap-extra.yaml)"));
    // An entry removed removes its resource.
    let fewer = config.replace(OWNED_ENTRIES, "");
    let removed = again(&out, &fewer);
    assert_eq!(removed.code, 0, "{}", removed.stdout);
    let items = common::items_section(&removed.stdout);
    assert!(
        !items.contains("name: extra\n") && !items.contains("name: eu\n"),
        "{items}"
    );
    assert!(removed.stdout.contains("removed ConfigMap \"extra\" (injected/configmap-extra.yaml): PackageVariant \"my-pv\" owns it and no entry of spec.injection adds it any more"));
    // A package revision missing on a later run keeps its owned resource, with a warning.
    let rl = &out.stdout;
    let items = &rl[..rl.find("\nfunctionConfig:").map_or(rl.len(), |i| i + 1)];
    let mut next = with_items(items, &three_sources()[4..5]);
    next.push_str("functionConfig:\n");
    for line in config.lines() {
        next.push_str(&format!("  {line}\n"));
    }
    let kept = run(&next);
    assert_eq!(kept.code, 0, "{}", kept.stdout);
    assert!(common::items_section(&kept.stdout).contains("    primary: pg.eu\n"));
    assert!(kept.stdout.contains("kept ConfigMap \"eu\" (injected/configmap-eu.yaml) as it is: no Published PackageRevision of shared/databases"));
}

#[test]
fn an_owned_resource_never_overwrites_one_the_variant_does_not_own() {
    let mut items = three_sources();
    items.push("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: extra\n  annotations:\n    config.kubernetes.io/path: extra.yaml\ndata: {mine: x}\n".to_string());
    let config = pv(EXT, &format!("{THREE_ENTRIES}{OWNED_ENTRIES}"));
    let out = go(&items, &config);
    assert_error(
        &out,
        "spec.injection[3] would overwrite ConfigMap \"extra\" (extra.yaml), which PackageVariant \"my-pv\" does not own: a variant never overwrites what it does not own",
        "metadata.name",
    );
    assert!(!out.stdout.contains("injected/configmap-extra.yaml"));
    // Owned by another variant: the same.
    let other = items.last().cloned().unwrap_or_default().replace(
        "    config.kubernetes.io/path: extra.yaml\n",
        "    config.kubernetes.io/path: injected/configmap-extra.yaml\n    package-variant.fn.kpt.dev/owner: other-pv\n",
    );
    *items.last_mut().unwrap() = other;
    let out = go(&items, &config);
    assert_error(
        &out,
        "(it is owned by PackageVariant \"other-pv\")",
        "metadata.name",
    );
    // A file at the owned path, of another name, is not overwritten either.
    let at_path = items
        .last()
        .cloned()
        .unwrap_or_default()
        .replace("name: extra\n", "name: mine\n")
        .replace("    package-variant.fn.kpt.dev/owner: other-pv\n", "");
    *items.last_mut().unwrap() = at_path;
    let out = go(&items, &config);
    assert_error(
        &out,
        "spec.injection[3] would overwrite ConfigMap \"mine\" (injected/configmap-extra.yaml)",
        "metadata.name",
    );
}

#[test]
fn a_whole_resource_needs_its_identity() {
    let config = pv(EXT, "  injection:\n  - directResource: {data: {a: b}}\n");
    let out = go(&three_sources(), &config);
    assert_error(
        &out,
        "a directResource without bindingPoint is a whole resource added to the package: write its apiVersion",
        "spec.injection[0].directResource.apiVersion",
    );
    let config = pv(EXT, "  injection:\n  - clusterResource: {name: x}\n");
    let out = go(&three_sources(), &config);
    assert_error(
        &out,
        "clusterResource needs a bindingPoint (the point gives its kind)",
        "spec.injection[0].bindingPoint",
    );
}

// ------------------------------------------------------------------ package revisions without Porch

fn recipe(args: &[&str]) -> std::process::Output {
    std::process::Command::new("sh")
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/scripts/package-revision-resources.sh"
        ))
        .args(args)
        .output()
        .unwrap()
}

/// The example's PackageRevisionResources is what the recipe builds from its `databases/`.
#[test]
fn the_recipe_builds_the_examples_package_revision() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = recipe(&[
        &format!("{root}/examples/point-injection/databases"),
        "shared",
        "databases",
        "3",
    ]);
    assert!(out.status.success(), "{out:?}");
    let file = std::fs::read_to_string(format!(
        "{root}/examples/point-injection/in-cluster/databases.yaml"
    ))
    .unwrap();
    let body: String = file
        .lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), body);
}

/// A local directory as a package revision: its files read back exactly (a file that starts
/// with spaces, one without a final newline, one in a subdirectory), the revision floats to
/// it, and a hidden directory is left out.
#[test]
fn a_local_directory_is_a_package_revision_through_the_recipe() {
    let dir = std::env::temp_dir().join(format!("pv-recipe-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    std::fs::create_dir_all(dir.join(".git")).unwrap();
    std::fs::write(
        dir.join("Kptfile"),
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: databases\n",
    )
    .unwrap();
    std::fs::write(dir.join("sub/dbs.yml"), "  # indented comment first\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east1\ndata:\n  note: |\n    two\n    lines\n  primary: \"pg: 1\"").unwrap();
    std::fs::write(dir.join(".git/x.yaml"), "not: read\n").unwrap();
    let out = recipe(&[dir.to_str().unwrap(), "shared", "databases", "5", "team-a"]);
    assert!(out.status.success(), "{out:?}");
    let objects = String::from_utf8(out.stdout).unwrap();
    assert!(!objects.contains("not: read"));
    let docs: Vec<String> = objects
        .split("\n---\n")
        .map(|d| format!("{}\n", d.trim_end()))
        .collect();
    assert_eq!(docs.len(), 2);
    let mut items = vec![KPTFILE.to_string(), point("db-endpoints", "required")];
    items.extend(docs);
    let config = pv(EXT, "  injection:\n  - bindingPoint: db-endpoints\n    packageResource: {repo: shared, package: databases, name: us-east1}\n")
        .replace("  name: my-pv\n", "  name: my-pv\n  namespace: team-a\n");
    let run = go(&items, &config);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stdout
            .contains("  data:\n    note: |\n      two\n      lines\n    primary: 'pg: 1'\n"),
        "{}",
        run.stdout
    );
    assert!(run
        .stdout
        .contains("package:shared/databases@5:ConfigMap/us-east1"));
    let _ = std::fs::remove_dir_all(&dir);
    // Bad arguments: exit 2 with the usage.
    let bad = recipe(&["/nonexistent", "shared", "databases", "v3"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("REVISION must be a number"));
}

/// `--help` names the extension kinds and lists the fields they add.
#[test]
fn help_lists_the_extension_kinds_and_their_fields() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_package-variant"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    for part in [
        "  PackageVariant,    fn.kpt.dev/v1alpha1 ",
        "\nPackageVariant (fn.kpt.dev/v1alpha1)\n  Every field of PackageVariant (config.porch.kpt.dev/v1alpha1), plus (docs/extensions.md):\n",
        "\n  spec.injection[].bindingPoint (string)\n",
        "\n  spec.injection[].packageResource.revision (integer)\n",
        "\nPackageVariantSet (fn.kpt.dev/v1alpha1)\n",
    ] {
        assert!(help.contains(part), "--help lacks {part:?}");
    }
    // Porch's fields are listed once, under Porch's kinds.
    assert_eq!(
        help.matches("\n  spec.upstream.revision (integer").count(),
        2
    );
}

// ------------------------------------------------------------------ the set

/// An extension PackageVariantSet over the three `env: prod` Repositories, whose template fills
/// each variant's three points from sources named by CEL, and one more target whose template
/// uses only Porch's fields.
fn extension_set() -> String {
    "apiVersion: fn.kpt.dev/v1alpha1
kind: PackageVariantSet
metadata:
  name: my-set
spec:
  upstream: {repo: blueprints, package: base, revision: 1}
  targets:
  - repositorySelector:
      matchLabels: {env: prod}
    template:
      injection:
      - bindingPoint: regional-endpoints
        clusterResource: {nameExpr: \"repository.labels['region'] + '-endpoints'\"}
      - bindingPoint: team
        directResource: {data: {team: web}}
        dataExprs:
        - {key: region, valueExpr: \"repository.labels['region']\"}
      - bindingPoint: db-endpoints
        packageResource: {repo: shared, package: databases, nameExpr: \"repository.labels['region']\"}
  - repositories:
    - name: staging
"
    .to_string()
}

fn fleet() -> Vec<String> {
    let mut items = vec![common::UPSTREAM_PR.to_string()];
    for (name, region) in [
        ("edge-1", "us-east1"),
        ("edge-2", "eu-west1"),
        ("edge-3", "asia-east1"),
    ] {
        items.push(common::repository(
            name,
            &format!("{{env: prod, region: {region}}}"),
        ));
    }
    items.push(common::repository("staging", "{env: staging}"));
    items
}

#[test]
fn the_extension_set_emits_extension_variants_where_a_template_uses_injection() {
    let items: Vec<String> = fleet();
    let out = go(&items, &extension_set());
    assert_eq!(out.code, 0, "{}", out.stdout);
    let vs = variants(&out.stdout);
    assert_eq!(vs.len(), 4, "{}", out.stdout);
    let ext: Vec<&String> = vs
        .iter()
        .filter(|v| v.starts_with("apiVersion: fn.kpt.dev/v1alpha1\n"))
        .collect();
    assert_eq!(ext.len(), 3, "{vs:#?}");
    let staging = vs
        .iter()
        .find(|v| v.contains("name: my-set-staging-base"))
        .unwrap();
    assert!(
        staging.starts_with("apiVersion: config.porch.kpt.dev/v1alpha1\n"),
        "{staging}"
    );
    assert!(!staging.contains("injection"));
    let edge2 = vs
        .iter()
        .find(|v| v.contains("name: my-set-edge-2-base"))
        .unwrap();
    for want in [
        "  - bindingPoint: regional-endpoints\n    clusterResource:\n      name: eu-west1-endpoints\n",
        "    directResource:\n      data:\n        team: web\n        region: eu-west1\n",
        "    packageResource:\n      repo: shared\n      package: databases\n      name: eu-west1\n",
    ] {
        assert!(edge2.contains(want), "{want:?} not in\n{edge2}");
    }
    // Run again on its own output: nothing changes (the extension variants are the set's own).
    let again = run(&out.stdout);
    assert_eq!(again.code, 0, "{}", again.stdout);
    assert_eq!(
        common::items_section(&again.stdout),
        common::items_section(&out.stdout)
    );
    // Each variant on its own package: its points from its region's sources.
    for (v, region) in ext.iter().zip(["us-east1", "eu-west1", "asia-east1"]) {
        let [pr, prr] = package_revision(3, &format!("pg.{region}"), "default");
        let prr = prr.replace("name: us-east1\n", &format!("name: {region}\n"));
        let pkg = [
            KPTFILE.to_string(),
            point("regional-endpoints", "required"),
            point("team", "required"),
            point("db-endpoints", "optional"),
            in_cluster(
                &format!("{region}-endpoints"),
                "default",
                &format!("db.{region}"),
            ),
            pr,
            prr,
        ];
        let applied = go(&pkg, v);
        assert_eq!(applied.code, 0, "{v}\n{}", applied.stdout);
        let s = &applied.stdout;
        assert!(s.contains(&format!("    db: db.{region}\n")), "{s}");
        assert!(s.contains(&format!("    region: {region}\n")), "{s}");
        assert!(s.contains(&format!("    primary: pg.{region}\n")), "{s}");
    }
}

#[test]
fn the_set_moves_a_variant_between_porchs_kind_and_the_extensions() {
    let out = go(&fleet(), &extension_set());
    assert_eq!(out.code, 0, "{}", out.stdout);
    // Without injection in the template, the set's variants go back to Porch's kind.
    let porch_only = extension_set().replace(
        &extension_set()[extension_set().find("      injection:").unwrap()
            ..extension_set().find("  - repositories:").unwrap()],
        "      labels: {tier: web}\n",
    );
    let rl = &out.stdout;
    let at = rl.find("\nfunctionConfig:").map_or(rl.len(), |i| i + 1);
    let mut next = rl[..at].to_string();
    next.push_str("functionConfig:\n");
    for line in porch_only.lines() {
        next.push_str(&format!("  {line}\n"));
    }
    let back = run(&next);
    assert_eq!(back.code, 0, "{}", back.stdout);
    let vs = variants(&back.stdout);
    assert_eq!(vs.len(), 4, "{}", back.stdout);
    assert!(
        vs.iter()
            .all(|v| v.starts_with("apiVersion: config.porch.kpt.dev/v1alpha1\n")),
        "{vs:#?}"
    );
    assert!(vs.iter().all(|v| !v.contains("injection")));
}

#[test]
fn template_injection_under_porchs_set_is_refused_and_empty_names_are_errors() {
    let porch = extension_set().replace(
        "apiVersion: fn.kpt.dev/v1alpha1",
        "apiVersion: config.porch.kpt.dev/v1alpha2",
    );
    let out = go(&fleet(), &porch);
    assert_error(
        &out,
        "unknown field \"injection\": injection is an extension of this function, not a field of Porch's PackageVariantSet; write apiVersion: fn.kpt.dev/v1alpha1 to use it",
        "spec.targets[0].template.injection",
    );
    let empty = extension_set().replace(
        "repository.labels['region']\"}\n  - repositories",
        "'' \"}\n  - repositories",
    );
    let out = go(&fleet(), &empty);
    assert_error(
        &out,
        "gives an empty name: the PackageVariant would refuse it",
        "spec.targets[0].template.injection[2].packageResource.nameExpr",
    );
}

// ------------------------------------------------------------------ hostile sizes

#[path = "../benches/support/hostile_values.rs"]
mod hostile_values;

/// 30,000 points bound from 30,000 sources (10,000 each from the cluster, inline and one
/// package revision): all injected, in bounded time (only a quadratic path or a hang fails).
#[test]
fn thirty_thousand_bound_points_are_linear() {
    let n = 30_000;
    let (out, cpu) = common::run_timed(hostile_values::bound_points(n).as_bytes());
    common::assert_cpu_under(cpu, std::time::Duration::from_secs(120), "30,000 points");
    assert_eq!(
        out.code,
        0,
        "{}",
        &out.stdout[out.stdout.len().saturating_sub(2000)..]
    );
    let items = common::items_section(&out.stdout);
    assert!(items.contains("    v: cluster-0\n"));
    assert!(items.contains("    v: inline-1\n"));
    assert!(items.contains("    v: package-2\n"));
    assert!(items.contains(&format!("    v: package-{}\n", n - 1)));
    assert_eq!(items.matches("    v: placeholder\n").count(), 0);
}

// ------------------------------------------------------------------ pipeline placement

/// A Kptfile whose pipeline has two upstream mutators, `set-labels` and `apply-setters`.
const KPTFILE_WITH_PIPELINE: &str = "apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
  annotations:
    config.kubernetes.io/path: Kptfile
pipeline:
  mutators:
  - name: set-labels
    image: set-labels:v0.1
  - name: apply-setters
    image: apply-setters:v0.1
";

fn mutator_names(out: &str) -> Vec<String> {
    let node = package_variant::yaml::parse(out).unwrap();
    let json = package_variant::yaml::to_json(&node).unwrap();
    let kptfile = json["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "Kptfile")
        .unwrap();
    kptfile["pipeline"]["mutators"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["name"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn the_variants_functions_are_placed_where_the_extension_says() {
    let items = [KPTFILE_WITH_PIPELINE.to_string()];
    let pipeline = "  pipeline:\n    mutators:\n    - {name: ns, image: set-namespace:v0.4}\n";
    let ours = "PackageVariant.my-pv.ns.0";
    for (placement, want) in [
        ("", [ours, "set-labels", "apply-setters"]),
        (
            "  pipelinePlacement: {position: first}\n",
            [ours, "set-labels", "apply-setters"],
        ),
        (
            "  pipelinePlacement: {position: last}\n",
            ["set-labels", "apply-setters", ours],
        ),
        (
            "  pipelinePlacement: {position: before, function: apply-setters}\n",
            ["set-labels", ours, "apply-setters"],
        ),
        (
            "  pipelinePlacement: {position: after, function: apply-setters}\n",
            ["set-labels", "apply-setters", ours],
        ),
    ] {
        let config = pv(EXT, &format!("{pipeline}{placement}"));
        let out = go(&items, &config);
        assert_eq!(out.code, 0, "{placement}\n{}", out.stdout);
        assert_eq!(mutator_names(&out.stdout), want, "{placement}");
        // Idempotent: the next run moves nothing.
        let again = run(&out.stdout);
        assert_eq!(
            common::items_section(&again.stdout),
            common::items_section(&out.stdout),
            "{placement}"
        );
        // From another placement, the next run moves the functions (as after kpt pkg update).
        let other = pv(
            EXT,
            &format!("{pipeline}  pipelinePlacement: {{position: last}}\n"),
        );
        let rl = &out.stdout;
        let at = rl.find("\nfunctionConfig:").map_or(rl.len(), |i| i + 1);
        let mut moved = rl[..at].to_string();
        moved.push_str("functionConfig:\n");
        for line in other.lines() {
            moved.push_str(&format!("  {line}\n"));
        }
        let moved = run(&moved);
        assert_eq!(
            mutator_names(&moved.stdout),
            ["set-labels", "apply-setters", ours]
        );
    }
}

#[test]
fn a_placement_it_cannot_follow_is_an_error() {
    let items = [KPTFILE_WITH_PIPELINE.to_string()];
    let pipeline = "  pipeline:\n    mutators:\n    - {name: ns, image: set-namespace:v0.4}\n";
    let out = go(
        &items,
        &pv(
            EXT,
            &format!(
                "{pipeline}  pipelinePlacement: {{position: after, function: apply-setter}}\n"
            ),
        ),
    );
    assert_error(
        &out,
        "spec.pipelinePlacement: no function named \"apply-setter\" in the Kptfile's pipeline.mutators to place the variant's functions after; its named functions are set-labels, apply-setters",
        "pipeline.mutators",
    );
    let out = go(
        &items,
        &pv(
            EXT,
            &format!("{pipeline}  pipelinePlacement: {{position: middle}}\n"),
        ),
    );
    assert_error(
        &out,
        "unknown position \"middle\"; write one of first, last, before, after",
        "spec.pipelinePlacement.position",
    );
    let out = go(
        &items,
        &pv(
            EXT,
            &format!("{pipeline}  pipelinePlacement: {{position: before}}\n"),
        ),
    );
    assert_error(
        &out,
        "position before needs function",
        "spec.pipelinePlacement.function",
    );
    let out = go(
        &items,
        &pv(
            PORCH,
            &format!("{pipeline}  pipelinePlacement: {{position: last}}\n"),
        ),
    );
    assert_error(
        &out,
        "pipelinePlacement is an extension of this function",
        "spec.pipelinePlacement",
    );
}

// ------------------------------------------------------------------ a target's `when`

/// An extension PackageVariantSet whose one target selects every Repository with a `tier`
/// label and keeps those for which `when` is true.
fn when_set(api_version: &str, when: &str) -> String {
    format!(
        "apiVersion: {api_version}
kind: PackageVariantSet
metadata:
  name: my-set
spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
  targets:
  - repositorySelector:
      matchExpressions:
      - {{key: tier, operator: Exists}}
    when: {when}
"
    )
}

fn tiered_fleet() -> Vec<String> {
    let mut items = vec![common::UPSTREAM_PR.to_string()];
    for (name, tier) in [("prod-1", "prod"), ("test-1", "test"), ("prod-2", "prod")] {
        items.push(common::repository(name, &format!("{{tier: {tier}}}")));
    }
    items
}

#[test]
fn when_keeps_only_the_candidates_for_which_it_is_true() {
    let out = go(
        &tiered_fleet(),
        &when_set(EXT, "\"target.labels['tier'] != 'test'\""),
    );
    assert_eq!(out.code, 0, "{}", out.stdout);
    let vs = variants(&out.stdout);
    let names: Vec<&str> = [
        "my-set-prod-1-base",
        "my-set-prod-2-base",
        "my-set-test-1-base",
    ]
    .into_iter()
    .filter(|n| vs.iter().any(|v| v.contains(&format!("name: {n}\n"))))
    .collect();
    assert_eq!(
        names,
        ["my-set-prod-1-base", "my-set-prod-2-base"],
        "{vs:#?}"
    );
    assert_eq!(vs.len(), 2, "{vs:#?}");
    // Without the condition, all three are made: the filter is `when`'s doing.
    let all = go(&tiered_fleet(), &when_set(EXT, "\"true\""));
    assert_eq!(all.code, 0, "{}", all.stdout);
    assert_eq!(variants(&all.stdout).len(), 3);
    // On that output, the condition drops the test tier's variant as any other deletion: with
    // a warning naming it.
    let rl = &all.stdout;
    let end = ["\nfunctionConfig:", "\nresults:"]
        .iter()
        .filter_map(|k| rl.find(k))
        .min()
        .map_or(rl.len(), |i| i + 1);
    let mut next = rl[..end].to_string();
    next.push_str("functionConfig:\n");
    for line in when_set(EXT, "\"target.labels['tier'] != 'test'\"").lines() {
        next.push_str(&format!("  {line}\n"));
    }
    let again = run(&next);
    assert_eq!(again.code, 0, "{}", again.stdout);
    assert_eq!(variants(&again.stdout).len(), 2, "{}", again.stdout);
    let results = results_section(&again.stdout);
    assert!(
        results.contains("severity: warning") && results.contains("my-set-test-1-base"),
        "{results}"
    );
}

#[test]
fn a_when_that_is_not_a_bool_is_refused_at_compile_time() {
    let out = go(&tiered_fleet(), &when_set(EXT, "\"'a'\""));
    assert_error(&out, "must be a bool expression", "spec.targets[0].when");
    assert!(variants(&out.stdout).is_empty(), "{}", out.stdout);
    let empty = go(&tiered_fleet(), &when_set(EXT, "\"\""));
    assert_error(
        &empty,
        "is empty: write a CEL condition",
        "spec.targets[0].when",
    );
}

#[test]
fn a_when_that_fails_for_a_candidate_names_it() {
    let out = go(&tiered_fleet(), &when_set(EXT, "\"target.name\""));
    assert_error(&out, "for Repository \"prod-1\":", "spec.targets[0].when");
    assert!(variants(&out.stdout).is_empty(), "{}", out.stdout);
}

#[test]
fn when_under_porchs_set_is_refused_with_a_hint() {
    let out = go(
        &tiered_fleet(),
        &when_set(
            "config.porch.kpt.dev/v1alpha2",
            "\"target.labels['tier'] != 'test'\"",
        ),
    );
    assert_error(
        &out,
        "unknown field \"when\": when is an extension of this function, not a field of Porch's PackageVariantSet; write apiVersion: fn.kpt.dev/v1alpha1 to use it",
        "spec.targets[0].when",
    );
    assert!(variants(&out.stdout).is_empty(), "{}", out.stdout);
}
