//! The extension PackageVariantSet's upstreams through the binary: a floating `tag` resolved
//! against the PackageRevisions among the items (each variant carries the concrete revision and
//! the tag it follows), several `upstreams` (one variant per target and upstream), every error
//! of the design, and Porch's kind refusing both with a hint to the extension.

mod common;

use common::{items_section, repository, resource_list, results_section, run, variants};
use std::time::Duration;

const EXT: &str = "fn.kpt.dev/v1alpha1";
const PORCH: &str = "config.porch.kpt.dev/v1alpha2";

/// A PackageRevision of `blueprints/<package>` at `revision` with `lifecycle` and `labels` (a
/// flow map).
fn pr(package: &str, revision: i64, lifecycle: &str, labels: &str) -> String {
    format!(
        "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: blueprints.{package}.v{revision}
  labels: {labels}
spec:
  repository: blueprints
  packageName: {package}
  revision: {revision}
  lifecycle: {lifecycle}
"
    )
}

/// A set `my-set` of `api_version` with `upstream` (YAML lines under `spec:`, indented by
/// two) over every Repository labelled `env: prod`.
fn set(api_version: &str, upstream: &str) -> String {
    format!(
        "apiVersion: {api_version}
kind: PackageVariantSet
metadata:
  name: my-set
spec:
{upstream}  targets:
  - repositorySelector: {{matchLabels: {{env: prod}}}}
"
    )
}

/// `base` at revisions 1 and 2 (Published, 2 tagged `stable`) and 3 (Draft), and three
/// production repositories.
fn fleet() -> Vec<String> {
    vec![
        pr("base", 1, "Published", "{}"),
        pr(
            "base",
            2,
            "Published",
            "{package-variant.fn.kpt.dev/tag-stable: \"true\"}",
        ),
        pr("base", 3, "Draft", "{}"),
        repository("edge1", "{env: prod}"),
        repository("edge2", "{env: prod}"),
        repository("edge3", "{env: prod}"),
    ]
}

fn go(items: &[String], config: &str) -> common::Run {
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    run(&resource_list(&items, config))
}

/// `(name, upstream package, upstream revision, tag annotation)` of each variant.
fn summary_of(out: &str) -> Vec<(String, String, i64, String)> {
    variants(out)
        .iter()
        .map(|v| {
            let after = |key: &str, from: &str| -> String {
                v[v.find(from).unwrap_or(0)..]
                    .lines()
                    .find_map(|l| l.trim().strip_prefix(key))
                    .unwrap_or("")
                    .trim()
                    .to_string()
            };
            (
                after("name: ", "metadata:"),
                after("package: ", "upstream:"),
                after("revision: ", "upstream:").parse().unwrap_or(0),
                after("package-variant.fn.kpt.dev/upstream-tag: ", "metadata:"),
            )
        })
        .collect()
}

/// Exit 1, an error result with every one of `messages` at `field`, and the items unchanged.
fn assert_error(items: &[String], config: &str, messages: &[&str], field: &str) {
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let input = resource_list(&items, config);
    let out = run(&input);
    assert_eq!(out.code, 1, "{}", out.stdout);
    // YAML's single quotes write a quote twice.
    let results = results_section(&out.stdout).replace("''", "'");
    for m in messages {
        assert!(results.contains(m), "{m:?} not in\n{results}");
    }
    assert!(
        results.contains(&format!("path: {field}\n"))
            || results.contains(&format!("path: '{field}'\n")),
        "{field} not in\n{results}"
    );
    assert_eq!(items_section(&out.stdout), items_section(&input));
}

fn tagged(tag: &str) -> String {
    format!("  upstream: {{repo: blueprints, package: base, tag: {tag}}}\n")
}

/// The output of a run with `config` in place of its functionConfig: the next run's input.
fn next_input(out: &str, config: &str) -> String {
    let end = ["\nfunctionConfig:", "\nresults:"]
        .iter()
        .filter_map(|k| out.find(k))
        .min()
        .map_or(out.len(), |i| i + 1);
    let mut next = out[..end].to_string();
    next.push_str("functionConfig:\n");
    for line in config.lines() {
        next.push_str(&format!("  {line}\n"));
    }
    next
}

// ------------------------------------------------------------------ floating tags

#[test]
fn a_named_tag_resolves_to_the_revision_labelled_with_it() {
    let out = go(&fleet(), &set(EXT, &tagged("stable")));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let vs = summary_of(&out.stdout);
    assert_eq!(vs.len(), 3, "{}", out.stdout);
    for (v, repo) in vs.iter().zip(["edge1", "edge2", "edge3"]) {
        assert_eq!(
            v,
            &(
                format!("my-set-{repo}-base"),
                "base".into(),
                2,
                "stable".into()
            )
        );
    }
    // Porch's own kind: the variants use Porch's fields only, with a concrete revision.
    for v in variants(&out.stdout) {
        assert!(
            v.starts_with("apiVersion: config.porch.kpt.dev/v1alpha1\n"),
            "{v}"
        );
        assert!(!v.contains(" tag: "), "{v}");
    }
    let results = results_section(&out.stdout);
    assert!(
        results.contains(
            "spec.upstream tag \"stable\" of blueprints/base resolved to revision 2 (PackageRevision \"blueprints.base.v2\")"
        ),
        "{results}"
    );
}

#[test]
fn latest_is_porchs_labelled_revision_when_one_is_labelled() {
    let mut items = fleet();
    // Porch's label on revision 1 wins over the higher revision 2.
    items[0] = pr(
        "base",
        1,
        "Published",
        "{kpt.dev/latest-revision: \"true\"}",
    );
    let out = go(&items, &set(EXT, &tagged("latest")));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let vs = summary_of(&out.stdout);
    assert_eq!(vs.len(), 3);
    assert!(vs.iter().all(|v| v.2 == 1 && v.3 == "latest"), "{vs:?}");
}

#[test]
fn latest_without_the_label_is_the_highest_published_revision() {
    // Revision 3 is a Draft: the highest Published is 2.
    let out = go(&fleet(), &set(EXT, &tagged("latest")));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let vs = summary_of(&out.stdout);
    assert_eq!(vs.len(), 3);
    assert!(vs.iter().all(|v| v.2 == 2 && v.3 == "latest"), "{vs:?}");
}

#[test]
fn when_the_tag_moves_the_next_run_updates_the_revisions_and_then_nothing() {
    let config = set(EXT, &tagged("stable"));
    let first = go(&fleet(), &config);
    assert_eq!(first.code, 0, "{}", first.stdout);
    // Run again on the output: nothing changes (the annotation is not an update).
    let again = run(&next_input(&first.stdout, &config));
    assert_eq!(again.code, 0, "{}", again.stdout);
    let results = results_section(&again.stdout);
    assert!(
        results.contains("0 created, 0 updated, 3 unchanged"),
        "{results}"
    );
    assert_eq!(items_section(&again.stdout), items_section(&first.stdout));
    // The author publishes revision 3 and moves the tag to it.
    let moved = next_input(&first.stdout, &config)
        .replace(
            "labels: {package-variant.fn.kpt.dev/tag-stable: \"true\"}",
            "labels: {}",
        )
        .replace(
            "name: blueprints.base.v3\n    labels: {}\n  spec:\n    repository: blueprints\n    packageName: base\n    revision: 3\n    lifecycle: Draft",
            "name: blueprints.base.v3\n    labels: {package-variant.fn.kpt.dev/tag-stable: \"true\"}\n  spec:\n    repository: blueprints\n    packageName: base\n    revision: 3\n    lifecycle: Published",
        );
    assert!(
        moved.contains("lifecycle: Published\n") && !moved.contains("Draft"),
        "{moved}"
    );
    let upgraded = run(&moved);
    assert_eq!(upgraded.code, 0, "{}", upgraded.stdout);
    let results = results_section(&upgraded.stdout);
    assert!(
        results.contains("0 created, 3 updated (my-set-edge1-base [spec.upstream.revision]"),
        "{results}"
    );
    assert!(results.contains("resolved to revision 3"), "{results}");
    let vs = summary_of(&upgraded.stdout);
    assert_eq!(vs.len(), 3);
    assert!(vs.iter().all(|v| v.2 == 3 && v.3 == "stable"), "{vs:?}");
    // And then it stops changing.
    let settled = run(&next_input(&upgraded.stdout, &config));
    assert!(
        results_section(&settled.stdout).contains("0 created, 0 updated, 3 unchanged"),
        "{}",
        settled.stdout
    );
}

#[test]
fn a_variant_made_at_a_revision_gets_the_tag_annotation_when_the_set_follows_a_tag() {
    let fixed = set(
        EXT,
        "  upstream: {repo: blueprints, package: base, revision: 2}\n",
    );
    let first = go(&fleet(), &fixed);
    assert_eq!(first.code, 0, "{}", first.stdout);
    assert!(summary_of(&first.stdout).iter().all(|v| v.3.is_empty()));
    let config = set(EXT, &tagged("stable"));
    let out = run(&next_input(&first.stdout, &config));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let results = results_section(&out.stdout);
    assert!(
        results.contains(
            "3 updated (my-set-edge1-base [metadata.annotations[package-variant.fn.kpt.dev/upstream-tag]]"
        ),
        "{results}"
    );
    let vs = summary_of(&out.stdout);
    assert!(vs.iter().all(|v| v.2 == 2 && v.3 == "stable"), "{vs:?}");
}

#[test]
fn a_tag_on_two_revisions_is_an_error_naming_both() {
    let mut items = fleet();
    items[0] = pr(
        "base",
        1,
        "Published",
        "{package-variant.fn.kpt.dev/tag-stable: \"true\"}",
    );
    assert_error(
        &items,
        &set(EXT, &tagged("stable")),
        &[
            "tag \"stable\" of package \"base\" in repo \"blueprints\" is on 2 PackageRevisions: \"blueprints.base.v1\" (revision 1, Published), \"blueprints.base.v2\" (revision 2, Published); a tag names one revision",
        ],
        "spec.upstream.tag",
    );
}

#[test]
fn a_tag_that_names_nothing_is_an_error_with_did_you_mean() {
    assert_error(
        &fleet(),
        &set(EXT, &tagged("stabel")),
        &[
            "tag \"stabel\" of package \"base\" in repo \"blueprints\" names nothing",
            "the tags its revisions carry: \"latest\", \"stable\"; did you mean \"stable\"?",
        ],
        "spec.upstream.tag",
    );
}

#[test]
fn a_tag_on_a_draft_is_an_error_naming_it() {
    let mut items = fleet();
    items[2] = pr(
        "base",
        3,
        "Draft",
        "{package-variant.fn.kpt.dev/tag-beta: \"true\"}",
    );
    assert_error(
        &items,
        &set(EXT, &tagged("beta")),
        &["tag \"beta\" of package \"base\" in repo \"blueprints\" is on PackageRevision \"blueprints.base.v3\" (revision 3, Draft), which is not Published"],
        "spec.upstream.tag",
    );
}

#[test]
fn latest_with_nothing_published_is_an_error_naming_the_revisions() {
    let items = vec![
        pr("base", 1, "Draft", "{}"),
        pr("base", 2, "Proposed", "{}"),
        repository("edge1", "{env: prod}"),
    ];
    assert_error(
        &items,
        &set(EXT, &tagged("latest")),
        &["tag \"latest\" of package \"base\" in repo \"blueprints\" names nothing: none of its PackageRevisions is Published: \"blueprints.base.v1\" (revision 1, Draft), \"blueprints.base.v2\" (revision 2, Proposed)"],
        "spec.upstream.tag",
    );
}

#[test]
fn a_revision_and_a_tag_together_are_an_error_saying_which_to_keep() {
    assert_error(
        &fleet(),
        &set(
            EXT,
            "  upstream: {repo: blueprints, package: base, revision: 1, tag: stable}\n",
        ),
        &["spec.upstream gives both tag \"stable\" and revision 1; give one: keep tag: \"stable\" to follow the tag (the variants get the revision it names), or revision: 1 to stay at that revision"],
        "spec.upstream.tag",
    );
}

#[test]
fn a_tag_that_cannot_be_a_label_is_refused() {
    assert_error(
        &fleet(),
        &set(EXT, &tagged("\"a/b\"")),
        &["tag \"a/b\" cannot be a tag"],
        "spec.upstream.tag",
    );
}

#[test]
fn a_tag_of_a_package_from_another_namespace_names_nothing() {
    // Namespaces are never guessed: the set is in team-a, the PackageRevisions in team-b.
    let items: Vec<String> = fleet()
        .iter()
        .map(|i| i.replacen("metadata:\n", "metadata:\n  namespace: team-b\n", 1))
        .chain([repository("edge1", "{env: prod}").replacen(
            "metadata:\n",
            "metadata:\n  namespace: team-a\n",
            1,
        )])
        .collect();
    let config = set(EXT, &tagged("stable"))
        .replace("  name: my-set\n", "  name: my-set\n  namespace: team-a\n");
    assert_error(
        &items,
        &config,
        &["names nothing: no PackageRevision of it among the input items carries the label package-variant.fn.kpt.dev/tag-stable"],
        "spec.upstream.tag",
    );
}

// ------------------------------------------------------------------ several upstreams

fn two_upstreams(extra: &str) -> String {
    set(
        EXT,
        &format!(
            "  upstreams:\n  - {{repo: blueprints, package: base, tag: stable}}\n  - {{repo: blueprints, package: redis, revision: 1}}\n{extra}"
        ),
    )
}

#[test]
fn two_upstreams_over_three_targets_make_six_variants() {
    let mut items = fleet();
    items.push(pr("redis", 1, "Published", "{}"));
    let out = go(&items, &two_upstreams(""));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let vs = summary_of(&out.stdout);
    let want: Vec<(String, String, i64, String)> = ["edge1", "edge2", "edge3"]
        .iter()
        .flat_map(|r| {
            [
                (
                    format!("my-set-{r}-base"),
                    "base".to_string(),
                    2,
                    "stable".to_string(),
                ),
                (
                    format!("my-set-{r}-redis"),
                    "redis".to_string(),
                    1,
                    String::new(),
                ),
            ]
        })
        .collect();
    assert_eq!(vs, want, "{}", out.stdout);
    // Each variant's downstream package is its upstream's.
    for v in variants(&out.stdout) {
        let up = if v.contains("package: redis\n    revision") {
            "redis"
        } else {
            "base"
        };
        assert!(v.contains("downstream:\n    repo: edge"), "{v}");
        assert!(v.contains(&format!("    package: {up}\n")), "{v}");
    }
    // Run again on the output: nothing changes.
    let again = run(&next_input(&out.stdout, &two_upstreams("")));
    assert!(
        results_section(&again.stdout).contains("0 created, 0 updated, 6 unchanged"),
        "{}",
        again.stdout
    );
}

#[test]
fn each_upstream_is_the_templates_upstream_and_package_default() {
    let mut items = fleet();
    items.push(pr("redis", 1, "Published", "{}"));
    let config = format!(
        "{}    template:\n      annotationExprs:\n      - {{key: from, valueExpr: \"upstream.name + '/' + packageDefault\"}}\n",
        two_upstreams("")
    );
    let out = go(&items, &config);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let vs = variants(&out.stdout);
    assert_eq!(vs.len(), 6);
    for v in &vs {
        let want = if v.contains("name: my-set-edge1-redis\n")
            || v.contains("name: my-set-edge2-redis\n")
            || v.contains("name: my-set-edge3-redis\n")
        {
            "from: blueprints.redis.v1/redis"
        } else {
            "from: blueprints.base.v2/base"
        };
        assert!(v.contains(want), "{want} not in {v}");
    }
}

#[test]
fn upstream_and_upstreams_together_are_an_error() {
    let config = two_upstreams("  upstream: {repo: blueprints, package: base, revision: 1}\n");
    let mut items = fleet();
    items.push(pr("redis", 1, "Published", "{}"));
    assert_error(
        &items,
        &config,
        &["spec.upstream and spec.upstreams are both given; give one"],
        "spec.upstreams",
    );
}

#[test]
fn two_upstreams_onto_one_downstream_package_clash_naming_both() {
    let mut items = fleet();
    items.push(pr("redis", 1, "Published", "{}"));
    let config = format!(
        "{}    template:\n      downstream: {{package: app}}\n",
        two_upstreams("")
    );
    assert_error(
        &items,
        &config,
        &[
            "for spec.upstreams[0]",
            "for spec.upstreams[1]",
            "both produce the PackageVariant identifier \"my-set-edge1-app\"",
        ],
        "spec.targets[0].repositorySelector",
    );
}

#[test]
fn an_upstream_of_the_list_that_cannot_be_found_is_an_error_on_its_entry() {
    // No redis PackageRevision among the items.
    assert_error(
        &fleet(),
        &two_upstreams(""),
        &["could not find upstream package revision 'redis/1' in repo 'blueprints'"],
        "spec.upstreams[1]",
    );
}

#[test]
fn an_empty_upstreams_list_is_an_error() {
    assert_error(
        &fleet(),
        &set(EXT, "  upstreams: []\n"),
        &["must specify at least one item"],
        "spec.upstreams",
    );
}

// ------------------------------------------------------------------ strictness and Porch's kind

#[test]
fn porchs_set_refuses_tag_and_upstreams_with_a_hint() {
    assert_error(
        &fleet(),
        &set(PORCH, &tagged("stable")),
        &["unknown field \"tag\": tag is an extension of this function, not a field of Porch's PackageVariantSet; write apiVersion: fn.kpt.dev/v1alpha1 to use it"],
        "spec.upstream.tag",
    );
    assert_error(
        &fleet(),
        &set(
            PORCH,
            "  upstreams:\n  - {repo: blueprints, package: base, revision: 1}\n",
        ),
        &["unknown field \"upstreams\": upstreams is an extension of this function, not a field of Porch's PackageVariantSet; write apiVersion: fn.kpt.dev/v1alpha1 to use it"],
        "spec.upstreams",
    );
}

#[test]
fn typos_in_the_upstreams_have_did_you_mean() {
    assert_error(
        &fleet(),
        &set(
            EXT,
            "  upstreams:\n  - {repo: blueprints, package: base, tga: stable}\n",
        ),
        &["unknown field \"tga\"; did you mean \"tag\"?"],
        "spec.upstreams[0].tga",
    );
    assert_error(
        &fleet(),
        &set(
            EXT,
            "  upstream: {repo: blueprints, package: base, tag: stable}\n  upstraems: []\n",
        ),
        &["unknown field \"upstraems\"; did you mean \"upstreams\"?"],
        "spec.upstraems",
    );
}

// ------------------------------------------------------------------ size

#[test]
fn thousands_of_package_revisions_and_a_thousand_upstreams_resolve_in_bounded_time() {
    // 1,000 packages of 5 revisions each (5,000 PackageRevisions), each followed by its tag.
    let mut items: Vec<String> = Vec::new();
    for p in 0..1000 {
        for r in 1..=5 {
            let labels = if r == 3 {
                "{package-variant.fn.kpt.dev/tag-stable: \"true\"}"
            } else {
                "{}"
            };
            items.push(pr(&format!("p{p}"), r, "Published", labels));
        }
    }
    items.push(repository("edge1", "{env: prod}"));
    let mut upstreams = String::from("  upstreams:\n");
    for p in 0..1000 {
        upstreams.push_str(&format!(
            "  - {{repo: blueprints, package: p{p}, tag: stable}}\n"
        ));
    }
    let items: Vec<&str> = items.iter().map(String::as_str).collect();
    let input = resource_list(&items, &set(EXT, &upstreams));
    let (out, cpu) = common::run_timed(input.as_bytes());
    common::assert_cpu_under(cpu, Duration::from_secs(20), "1,000 upstreams");
    assert_eq!(out.code, 0, "{}", results_section(&out.stdout));
    let vs = summary_of(&out.stdout);
    assert_eq!(vs.len(), 1000);
    assert!(vs.iter().all(|v| v.2 == 3 && v.3 == "stable"));
}
