//! Metadata written through anchors, aliases and merge keys, through the binary: namespace
//! isolation and selectors must read `namespace: *ns` and `labels: {<<: *common}` as kpt
//! (go-yaml v3) and the API server read them, never as "no namespace" or "no labels".

mod common;

use common::{
    items_section, pv_config, pvs_config, resource_list, results_section, run, INJECTION_POINT,
    KPTFILE, PACKAGE_CONTEXT, UPSTREAM_PR,
};

// ---------------------------------------------------------------- namespace isolation

/// An in-cluster ConfigMap `us-east1-endpoints` whose `metadata` body is `metadata` (lines
/// indented by two spaces, without the in-cluster annotation, which is added), with `before`
/// (top-level lines, e.g. anchors) ahead of it.
fn in_cluster(before: &str, metadata: &str, db: &str) -> String {
    format!(
        "apiVersion: v1\nkind: ConfigMap\n{before}metadata:\n  name: us-east1-endpoints\n{metadata}  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: {db}\n"
    )
}

fn pv_in_team_a() -> String {
    pv_config("  injectors:\n  - name: us-east1-endpoints\n")
        .replace("  name: my-pv\n", "  name: my-pv\n  namespace: team-a\n")
}

/// Runs a PackageVariant of namespace team-a over one in-cluster object.
fn inject(object: &str) -> common::Run {
    run(&resource_list(
        &[KPTFILE, PACKAGE_CONTEXT, INJECTION_POINT, object],
        &pv_in_team_a(),
    ))
}

/// Every way of writing `namespace: team-b` through an anchor: the object is in team-b and is
/// never injected into team-a's package.
#[test]
fn a_namespace_written_through_an_alias_or_merge_key_is_isolated() {
    let cases = [
        // A plain alias to an anchor elsewhere in the object.
        ("x-owner: &ns team-b\n", "  namespace: *ns\n"),
        // The anchor on a label value.
        ("", "  labels: {team: &ns team-b}\n  namespace: *ns\n"),
        // A redefined anchor: the alias takes the latest one before it.
        ("x-a: &ns team-a\nx-b: &ns team-b\n", "  namespace: *ns\n"),
        // A merge key at the metadata level.
        ("x-base: &base {namespace: team-b}\n", "  <<: *base\n"),
        // A list of merged mappings: the first that sets the key wins.
        (
            "x-b: &b {namespace: team-b}\nx-a: &a {namespace: team-a}\n",
            "  <<: [*b, *a]\n",
        ),
        // A merged mapping that itself merges another.
        (
            "x-in: &in {namespace: team-b}\nx-out: &out {<<: *in, other: x}\n",
            "  <<: *out\n",
        ),
    ];
    let mut objects: Vec<String> = cases
        .iter()
        .map(|(before, metadata)| in_cluster(before, metadata, "SECRET-OF-TEAM-B"))
        .collect();
    // The metadata mapping itself is an alias.
    objects.push(
        "apiVersion: v1\nkind: ConfigMap\nx-meta: &meta\n  name: us-east1-endpoints\n  namespace: team-b\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\nmetadata: *meta\ndata:\n  db: SECRET-OF-TEAM-B\n".to_string(),
    );
    for (i, object) in objects.iter().enumerate() {
        let out = inject(object);
        assert_eq!(out.code, 0, "case {i}: {}{}", out.stdout, out.stderr);
        assert!(
            !items_section(&out.stdout).contains("db: SECRET-OF-TEAM-B"),
            "case {i}: injected across namespaces:\n{}",
            out.stdout
        );
        let results = results_section(&out.stdout);
        assert!(
            results.contains("is in namespace \"team-b\"") && results.contains("skipped"),
            "case {i}: {results}"
        );
    }
}

/// The controls: the same constructs naming team-a are injected, and an explicit key wins over
/// a merged one wherever it stands (go-yaml v3).
#[test]
fn a_namespace_written_through_an_alias_or_merge_key_is_read() {
    let cases = [
        ("x-owner: &ns team-a\n", "  namespace: *ns\n"),
        ("x-b: &ns team-b\nx-a: &ns team-a\n", "  namespace: *ns\n"),
        ("x-base: &base {namespace: team-a}\n", "  <<: *base\n"),
        (
            "x-base: &base {namespace: team-b}\n",
            "  namespace: team-a\n  <<: *base\n",
        ),
        (
            "x-base: &base {namespace: team-b}\n",
            "  <<: *base\n  namespace: team-a\n",
        ),
        (
            "x-a: &a {namespace: team-a}\nx-b: &b {namespace: team-b}\n",
            "  <<: [*a, *b]\n",
        ),
    ];
    for (i, (before, metadata)) in cases.iter().enumerate() {
        let out = inject(&in_cluster(before, metadata, "db.team-a.example.com"));
        assert_eq!(out.code, 0, "case {i}: {}", out.stdout);
        assert!(
            items_section(&out.stdout).contains("db: db.team-a.example.com"),
            "case {i}: not injected:\n{}",
            out.stdout
        );
    }
}

/// The PackageVariant's own namespace through an alias: injection follows it.
#[test]
fn the_package_variants_namespace_through_an_alias() {
    let config = pv_config("  injectors:\n  - name: us-east1-endpoints\n").replace(
        "  name: my-pv\n",
        "  name: my-pv\n  labels: {team: &ns team-b}\n  namespace: *ns\n",
    );
    let object = in_cluster("", "  namespace: team-a\n", "SECRET-OF-TEAM-A");
    let out = run(&resource_list(
        &[KPTFILE, PACKAGE_CONTEXT, INJECTION_POINT, &object],
        &config,
    ));
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(
        !items_section(&out.stdout).contains("SECRET-OF-TEAM-A"),
        "{}",
        out.stdout
    );
    assert!(
        results_section(&out.stdout).contains("namespace \"team-b\": skipped"),
        "{}",
        out.stdout
    );
}

/// An alias whose anchor is not in the same object (another item, or nowhere) cannot be read
/// as kpt would write the object to its own file: an error on that field, nothing changes.
#[test]
fn an_alias_to_an_anchor_outside_the_object_is_an_error() {
    let first = in_cluster(
        "x: &ns team-b\n",
        "  namespace: team-c\n",
        "db.other.example.com",
    )
    .replace("us-east1-endpoints", "other");
    let object = in_cluster("", "  namespace: *ns\n", "SECRET-OF-TEAM-B");
    let input = resource_list(
        &[KPTFILE, PACKAGE_CONTEXT, INJECTION_POINT, &first, &object],
        &pv_in_team_a(),
    );
    let out = run(&input);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(items_section(&out.stdout), items_section(&input));
    let results = results_section(&out.stdout);
    assert!(
        results.contains("the alias *ns has no anchor &ns before it in this object")
            && results.contains("path: metadata.namespace")
            && results.contains("name: us-east1-endpoints"),
        "{results}"
    );
}

/// A mapping or list where the namespace or a label belongs is not guessed at.
#[test]
fn a_collection_where_a_string_belongs_is_an_error() {
    for (metadata, field) in [
        ("  namespace: [team-b]\n", "metadata.namespace"),
        ("  namespace: {team: b}\n", "metadata.namespace"),
        ("  labels: {team: [b]}\n", "metadata.labels[team]"),
        ("  labels: [team-b]\n", "metadata.labels"),
        ("  <<: [team-b]\n", "metadata.namespace"),
    ] {
        let input = resource_list(
            &[
                KPTFILE,
                PACKAGE_CONTEXT,
                INJECTION_POINT,
                &in_cluster("", metadata, "SECRET"),
            ],
            &pv_in_team_a(),
        );
        let out = run(&input);
        assert_eq!(out.code, 1, "{metadata}: {}", out.stdout);
        assert_eq!(items_section(&out.stdout), items_section(&input));
        let results = results_section(&out.stdout);
        assert!(
            results.contains(&format!("path: {field}")),
            "{metadata}: {results}"
        );
    }
}

// ---------------------------------------------------------------- PackageVariantSet selectors

/// A Repository whose `metadata` body is `metadata` (two-space indented), `before` ahead of it.
fn repository(before: &str, name: &str, metadata: &str) -> String {
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: Repository\n{before}metadata:\n  name: {name}\n{metadata}spec:\n  type: git\n"
    )
}

/// The PackageVariant the set `my-set` made for repository `repo` on an earlier run.
fn owned_variant(repo: &str, labels: &str) -> String {
    format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: my-set-{repo}-base
  namespace: default
{labels}spec:
  upstream: {{repo: blueprints, package: base, revision: 1}}
  downstream: {{repo: {repo}, package: base}}
"
    )
}

const OWNER: &str = "  labels:\n    config.porch.kpt.dev/packagevariantset: my-set\n";

const SELECT_PROD: &str = "  targets:\n  - repositorySelector: {matchLabels: {env: prod}}\n";

/// Repositories labelled through an alias or a merge key are selected: their existing variants
/// stay (they were deleted, exit 0) and new ones are created.
#[test]
fn repository_labels_through_aliases_and_merge_keys_are_selected() {
    let repos = [
        repository("x: &labels {env: prod}\n", "alias", "  labels: *labels\n"),
        repository(
            "x: &common {env: prod, tier: web}\n",
            "merge",
            "  labels:\n    <<: *common\n    site: a\n",
        ),
        repository(
            "x: &a {site: b}\ny: &b {env: prod}\n",
            "merge-list",
            "  labels: {<<: [*a, *b]}\n",
        ),
        repository("", "value", "  labels: {team: &p prod, env: *p}\n"),
        // Explicit keys win over merged ones: not selected.
        repository(
            "x: &common {env: prod}\n",
            "overridden",
            "  labels: {env: dev, <<: *common}\n",
        ),
    ];
    let existing = [
        owned_variant("alias", OWNER),
        owned_variant("merge", OWNER),
        owned_variant("overridden", OWNER),
    ];
    let mut items: Vec<&str> = vec![UPSTREAM_PR];
    items.extend(repos.iter().map(String::as_str));
    items.extend(existing.iter().map(String::as_str));
    let out = run(&resource_list(&items, &pvs_config(SELECT_PROD)));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let items_out = items_section(&out.stdout);
    for kept in ["my-set-alias-base", "my-set-merge-base"] {
        assert!(
            items_out.contains(&format!("name: {kept}")),
            "{kept} lost:\n{items_out}"
        );
    }
    for created in ["my-set-merge-list-base", "my-set-value-base"] {
        assert!(
            items_out.contains(&format!("packagevariants/{created}.yaml")),
            "{created} not created:\n{items_out}"
        );
    }
    assert!(
        !items_out.contains("name: my-set-overridden-base"),
        "{items_out}"
    );
    let results = results_section(&out.stdout);
    assert!(
        results.contains("2 created") && results.contains("1 deleted (my-set-overridden-base)"),
        "{results}"
    );
}

/// An existing PackageVariant whose owner label comes through a merge key or an alias is the
/// set's own: updated in place, never created a second time beside it.
#[test]
fn owned_variants_through_aliases_and_merge_keys_are_recognised() {
    let repo = repository("", "edge", "  labels: {env: prod}\n");
    for labels in [
        "  x: &owner {config.porch.kpt.dev/packagevariantset: my-set}\n  labels: *owner\n",
        "  x: &owner {config.porch.kpt.dev/packagevariantset: my-set}\n  labels: {<<: *owner}\n",
        "  x: &set my-set\n  labels: {config.porch.kpt.dev/packagevariantset: *set}\n",
    ] {
        let pv = owned_variant("edge", labels);
        let out = run(&resource_list(
            &[UPSTREAM_PR, &repo, &pv],
            &pvs_config(SELECT_PROD),
        ));
        assert_eq!(out.code, 0, "{labels}: {}", out.stdout);
        let items_out = items_section(&out.stdout);
        assert_eq!(
            items_out.matches("name: my-set-edge-base").count(),
            1,
            "{labels}:\n{items_out}"
        );
        assert!(
            results_section(&out.stdout).contains("0 created, 0 updated, 1 unchanged"),
            "{labels}: {}",
            out.stdout
        );
    }
}

/// objectSelector targets see their labels through aliases and merge keys too, and CEL sees
/// the merged labels.
#[test]
fn object_selector_and_cel_see_merged_labels() {
    let target = "apiVersion: v1
kind: ConfigMap
x: &site {site: edge, region: us-east1}
metadata:
  name: edge1
  namespace: default
  labels: {<<: *site}
data: {}
";
    let repo = repository("", "edge1", "");
    let targets = "  targets:\n  - objectSelector: {apiVersion: v1, kind: ConfigMap, matchLabels: {site: edge}}\n    template:\n      downstream:\n        packageExpr: \"target.labels['region']\"\n";
    let out = run(&resource_list(
        &[UPSTREAM_PR, &repo, target],
        &pvs_config(targets),
    ));
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert!(out.stdout.contains("package: us-east1"), "{}", out.stdout);
}

// ---------------------------------------------------------------- edits keep what aliases mean

const CONTEXT_WITH_ALIASES: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: kptfile.kpt.dev
  annotations:
    config.kubernetes.io/path: package-context.yaml
x-base: &base {m1: one, m2: two}
data:
  name: pkg
  a: &x one # comment a
  b: *x
  p: &y first
  r: *y
  q: &y second
  s: *y
  <<: *base
";

fn context_edit(context: &str, package_context: &str) -> common::Run {
    let config = pv_config(&format!("  packageContext:\n{package_context}"));
    run(&resource_list(&[KPTFILE, context], &config))
}

/// The `data` block of the package context in an output.
fn data_block(stdout: &str) -> &str {
    let items = items_section(stdout);
    let start = items
        .find("kptfile.kpt.dev")
        .and_then(|i| items[i..].find("\n  data:"))
        .map(|j| items.find("kptfile.kpt.dev").unwrap_or(0) + j + 1);
    start.map_or("", |s| &items[s..])
}

/// Setting a key whose value is anchored writes out the aliases that meant the old value;
/// aliases after a redefined anchor keep the value they meant; keys the edit does not set are
/// not touched; a key a merge key brings in is overridden by the object's own key.
#[test]
fn context_edits_never_change_what_an_alias_means() {
    let out = context_edit(
        CONTEXT_WITH_ALIASES,
        "    data: {a: two, t: new, m1: over}\n",
    );
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        data_block(&out.stdout),
        "  data:\n    name: pkg\n    a: &x two # comment a\n    b: one\n    p: &y first\n    r: *y\n    q: &y second\n    s: *y\n    <<: *base\n    m1: over\n    t: new\n"
    );
}

/// Removing an anchored key writes its aliases out; removing a key a merge key brings in writes
/// the merge out without it.
#[test]
fn context_removals_never_change_what_an_alias_means() {
    let out = context_edit(CONTEXT_WITH_ALIASES, "    removeKeys: [m2, p]\n");
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(
        data_block(&out.stdout),
        "  data:\n    name: pkg\n    a: &x one # comment a\n    b: *x\n    r: first\n    q: &y second\n    s: *y\n    m1: one\n"
    );
}

/// `data` itself an alias, or brought in by a merge key: written out as the object's own,
/// the anchored mapping untouched.
#[test]
fn context_data_through_an_alias_or_a_merge_key() {
    for data in ["data: *d\n", "<<: {data: *d}\n"] {
        let context = format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: kptfile.kpt.dev\n  annotations:\n    config.kubernetes.io/path: package-context.yaml\nx: &d {{name: pkg, a: one}}\n{data}"
        );
        let out = context_edit(&context, "    data: {a: two}\n");
        assert_eq!(out.code, 0, "{data}: {}", out.stdout);
        let items = items_section(&out.stdout);
        assert!(
            items.contains("  x: &d {name: pkg, a: one}\n"),
            "{data}: {items}"
        );
        assert!(
            items.contains("  data:\n    name: pkg\n    a: two\n"),
            "{data}: {items}"
        );
    }
}

const INJECTION_WITH_ALIASES: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: endpoints
  annotations: &ann
    kpt.dev/config-injection: required
    config.kubernetes.io/path: endpoints.yaml
data: &d
  db: placeholder
x-copy: *d
x-ann: *ann
";

/// Injection replaces an anchored `data` and adds to anchored annotations: the aliases that
/// meant the old ones keep them. The in-cluster object's own aliases (to an anchor outside its
/// `data`, and a merge key) are read where they resolve.
#[test]
fn injection_never_changes_what_an_alias_means() {
    let source = "apiVersion: v1
kind: ConfigMap
metadata:
  name: us-east1-endpoints
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
x: &v db.example.com
data: {db: *v, <<: {port: \"5432\"}}
";
    let config = pv_config("  injectors:\n  - name: us-east1-endpoints\n");
    let out = run(&resource_list(
        &[KPTFILE, INJECTION_WITH_ALIASES, source],
        &config,
    ));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let items = items_section(&out.stdout);
    assert!(
        items.contains(
            "    annotations: &ann\n      kpt.dev/config-injection: required\n      config.kubernetes.io/path: endpoints.yaml\n      kpt.dev/injected-resource: us-east1-endpoints\n  data: &d\n    db: db.example.com\n    port: \"5432\"\n  x-copy:\n    db: placeholder\n  x-ann:\n    kpt.dev/config-injection: required\n    config.kubernetes.io/path: endpoints.yaml\n"
        ),
        "{items}"
    );
}

/// Annotations written through an alias or a merge key: the injected-resource annotation is
/// added to the object's own copy, the anchored mapping stays as it was.
#[test]
fn injection_annotates_annotations_written_through_an_alias() {
    for metadata in [
        "x: &ann {kpt.dev/config-injection: required, config.kubernetes.io/path: endpoints.yaml}\nmetadata:\n  name: endpoints\n  annotations: *ann\n",
        "x: &m {annotations: {kpt.dev/config-injection: required, config.kubernetes.io/path: endpoints.yaml}}\nmetadata:\n  name: endpoints\n  <<: *m\n",
    ] {
        let point = format!("apiVersion: v1\nkind: ConfigMap\n{metadata}data:\n  db: placeholder\n");
        let source = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east1-endpoints\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: db.example.com\n";
        let config = pv_config("  injectors:\n  - name: us-east1-endpoints\n");
        let out = run(&resource_list(&[KPTFILE, &point, source], &config));
        assert_eq!(out.code, 0, "{}", out.stdout);
        let items = items_section(&out.stdout);
        assert!(items.contains("kpt.dev/injected-resource: us-east1-endpoints"), "{items}");
        assert!(items.contains("x: &"), "{items}");
        assert!(!items.contains("x: &ann {kpt.dev/config-injection: required, config.kubernetes.io/path: endpoints.yaml, kpt.dev/injected"), "{items}");
        assert!(items.contains("db: db.example.com"), "{items}");
    }
}

/// A PackageVariantSet updating an owned variant whose anchored `spec` is aliased elsewhere:
/// the alias keeps the old spec. An unchanged spec written through an alias stays an alias.
#[test]
fn package_variant_updates_never_change_what_an_alias_means() {
    let repo = repository("", "edge", "  labels: {env: prod}\n");
    let pv = owned_variant("edge", OWNER).replace(
        "spec:\n  upstream: {repo: blueprints, package: base, revision: 1}\n  downstream: {repo: edge, package: base}\n",
        "spec: &s\n  upstream: {repo: blueprints, package: base, revision: 1}\n  downstream: {repo: edge, package: base}\n  annotations: {old: \"yes\"}\nstatus:\n  was: *s\n",
    );
    let out = run(&resource_list(
        &[UPSTREAM_PR, &repo, &pv],
        &pvs_config(SELECT_PROD),
    ));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let items = items_section(&out.stdout);
    assert!(
        items.contains("  spec: &s\n    upstream: {repo: blueprints, package: base, revision: 1}\n    downstream: {repo: edge, package: base}\n  status:\n    was:\n      upstream: {repo: blueprints, package: base, revision: 1}\n      downstream: {repo: edge, package: base}\n      annotations: {old: \"yes\"}\n"),
        "{items}"
    );

    let same = owned_variant("edge", OWNER).replace(
        "spec:\n  upstream: {repo: blueprints, package: base, revision: 1}\n",
        "x: &up {repo: blueprints, package: base, revision: 1}\nspec:\n  upstream: *up\n",
    );
    let input = resource_list(&[UPSTREAM_PR, &repo, &same], &pvs_config(SELECT_PROD));
    let out = run(&input);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(items_section(&out.stdout), items_section(&input));
}

/// Writing an alias out when its meaning expands past the alias limit is an error result:
/// the run changes nothing rather than write a different value.
#[test]
fn an_alias_too_large_to_write_out_is_an_error() {
    let mut laughs = String::from("x0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..8 {
        laughs.push_str(&format!(
            "x{i}: &a{i} [{}]\n",
            vec![format!("*a{}", i - 1); 10].join(", ")
        ));
    }
    let point = format!(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: endpoints\n  annotations:\n    kpt.dev/config-injection: required\n    config.kubernetes.io/path: endpoints.yaml\n{laughs}data: &d\n  big: *a7\nx-copy: *d\n"
    );
    let source = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: us-east1-endpoints\n  annotations:\n    config.porch.kpt.dev/in-cluster: \"true\"\ndata:\n  db: db.example.com\n";
    let config = pv_config("  injectors:\n  - name: us-east1-endpoints\n");
    let input = resource_list(&[KPTFILE, &point, source], &config);
    let out = run(&input);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(items_section(&out.stdout), items_section(&input));
    assert!(
        results_section(&out.stdout).contains("the edit would change what its aliases mean"),
        "{}",
        results_section(&out.stdout)
    );
}

// ---------------------------------------------------------------- aliases anywhere in an item

/// A ResourceList with a PackageVariant over a package holding `objects` last, padded with
/// plain ConfigMaps past the size at which untouched items are skimmed and read by lines when
/// `pad` is set.
fn package_with(objects: &[&str], pad: bool) -> String {
    let mut items = vec![KPTFILE.to_string(), PACKAGE_CONTEXT.to_string()];
    let mut n = 0;
    while pad && items.iter().map(String::len).sum::<usize>() <= (256 + 16) * 1024 {
        items.push(format!(
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: pad-{n}\ndata:\n  k: v\n"
        ));
        n += 1;
    }
    items.extend(objects.iter().map(|o| o.to_string()));
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    resource_list(&items, &pv_config(""))
}

const ODD: &str = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: odd\n";

/// An alias that names no anchor before it in its own object, anywhere in an object the
/// function does not otherwise read, would mean nothing in the file kpt writes the object to:
/// an error names the object and the field, and nothing changes. The same in a large input
/// (untouched items skimmed and read by lines).
#[test]
fn an_alias_without_its_anchor_anywhere_in_an_object_is_an_error() {
    // An object before the odd one, holding every anchor the odd one names.
    let other = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: other\ndata:\n  a: &x 1\n  b: &base {k: v}\n";
    let cases = [
        // No anchor anywhere.
        ("data:\n  x: *nowhere\n", "nowhere", "data.x"),
        // The anchor comes after the alias.
        ("data:\n  a: *x\n  b: &x 1\n", "x", "data.a"),
        // Deep in lists and flows, under a key with a dot.
        ("data:\n  a.b: [1, {c: *x}]\n", "x", "data[a.b][1].c"),
        // A merge key.
        ("spec:\n  tpl:\n    <<: *base\n", "base", "spec.tpl.<<"),
    ];
    for (body, name, path) in cases {
        let odd = format!("{ODD}{body}");
        for pad in [false, true] {
            let input = package_with(&[other, &odd], pad);
            let out = run(&input);
            let what = format!("{body} (padded: {pad})\n{}{}", out.stdout, out.stderr);
            assert_eq!(out.code, 1, "{what}");
            assert_eq!(items_section(&out.stdout), items_section(&input), "{what}");
            let results = results_section(&out.stdout);
            assert!(
                results.contains(&format!(
                    "the alias *{name} has no anchor &{name} before it in this object"
                )) && results.contains(&format!("path: {path}\n"))
                    && results.contains("name: odd\n"),
                "{what}"
            );
        }
    }
    // In a JSON ResourceList.
    let json = r#"{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"x": &x "1"}}, {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "odd"}, "data": {"y": *x}}]}"#;
    let out = run(json);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(
        out.stdout
            .contains("the alias *x has no anchor &x before it in this object")
            && out.stdout.contains("path: data.y"),
        "{}",
        out.stdout
    );
}

/// An alias after its anchor in the same object passes through untouched, large or small.
#[test]
fn an_alias_after_its_anchor_in_the_same_object_passes_through() {
    let odd = format!("{ODD}data:\n  a: &x 1\n  b: *x\n  c: [&y 2, *y]\n  d:\n    <<: {{k: *x}}\n");
    for pad in [false, true] {
        let input = package_with(&[&odd], pad);
        let out = run(&input);
        assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
        let at = input.find("  name: odd\n").expect("odd");
        let odd_text = &input[at..input.find("functionConfig:").expect("config")];
        assert!(out.stdout.contains(odd_text), "{}", out.stdout);
    }
}
