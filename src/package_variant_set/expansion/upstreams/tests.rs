use super::tags::{label_of, tag_problem, LATEST_LABEL};
use super::*;
use crate::api::decode;
use crate::package_variant_set::expansion::inputs::from_json;
use serde_json::{json, Value};
use std::time::{Duration, Instant};

fn pr(package: &str, revision: i64, lifecycle: &str, labels: Value) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
        "metadata": {"name": format!("blueprints.{package}.v{revision}"), "labels": labels},
        "spec": {"repository": "blueprints", "packageName": package, "revision": revision,
            "lifecycle": lifecycle}})
}

fn set(spec: Value) -> PackageVariantSet {
    decode(&json!({"metadata": {"name": "s"}, "spec": spec}), "").unwrap_or_default()
}

#[test]
fn the_annotation_key_is_the_one_new_variants_write() {
    // `new_variant::PathAnnotations` spells it as a serde name.
    assert_eq!(
        UPSTREAM_TAG_ANNOTATION,
        "package-variant.fn.kpt.dev/upstream-tag"
    );
    assert_eq!(
        TAG_FIELD,
        format!("metadata.annotations[{UPSTREAM_TAG_ANNOTATION}]")
    );
    assert_eq!(label_of("latest"), LATEST_LABEL);
    assert_eq!(label_of("beta"), "package-variant.fn.kpt.dev/tag-beta");
}

#[test]
fn tags_must_make_label_keys() {
    assert!(tag_problem("stable").is_none());
    assert!(tag_problem("v1.2_rc-3").is_none());
    for bad in ["", "a/b", "x-", &"t".repeat(60), "sp ace"] {
        assert!(tag_problem(bad).is_some(), "{bad:?}");
    }
    assert!(tag_problem(&"t".repeat(59)).is_none());
}

#[test]
fn a_single_upstream_at_a_revision_is_porchs_first_match() {
    let mut items = [
        pr("base", 2, "Published", json!({})),
        pr("base", 1, "Draft", json!({})),
        pr("base", 1, "Published", json!({})),
    ];
    // Without workspace names, Porch's `revision OR workspaceName` would match any of them.
    for (i, w) in ["v2", "v1a", "v1b"].iter().enumerate() {
        items[i]["spec"]["workspaceName"] = json!(w);
    }
    let s = set(json!({"upstream": {"repo": "blueprints", "package": "base", "revision": 1}}));
    let r = resolve(&s, &from_json(&items), "default").unwrap_or_default();
    assert_eq!(r.len(), 1);
    // Porch takes the first in list order, whatever its lifecycle.
    assert_eq!(r[0].item, 1);
    assert_eq!(
        r[0].upstream,
        s.spec.upstream.clone().unwrap_or_default().as_written()
    );
    assert_eq!(r[0].tag, None);
}

#[test]
fn latest_ties_at_the_highest_revision_are_an_error() {
    let mut twin = pr("base", 2, "Published", json!({}));
    twin["metadata"]["name"] = json!("blueprints.base.main");
    let items = [pr("base", 2, "Published", json!({})), twin];
    let s = set(json!({"upstream": {"repo": "blueprints", "package": "base", "tag": "latest"}}));
    let e = resolve(&s, &from_json(&items), "default").unwrap_err();
    assert!(
        e[0].message
            .contains("is ambiguous: 2 Published PackageRevisions have the highest revision 2"),
        "{}",
        e[0].message
    );
}

#[test]
fn spread_makes_one_context_per_target_and_upstream() {
    let s = set(json!({"upstreams": [
        {"repo": "blueprints", "package": "a", "revision": 1},
        {"repo": "blueprints", "package": "b", "revision": 1}],
        "targets": [{"repositories": [{"name": "r1"}, {"name": "r2", "packageNames": ["fixed"]}]}]}));
    let items = [
        pr("a", 1, "Published", json!({})),
        pr("b", 1, "Published", json!({})),
    ];
    let resolved = resolve(&s, &from_json(&items), "default").unwrap_or_default();
    let contexts = crate::package_variant_set::expansion::targets::unroll_targets(
        &s.spec,
        "a",
        &from_json(&items),
        "default",
    )
    .unwrap_or_default();
    let spread = spread(contexts, &resolved).unwrap_or_default();
    let got: Vec<(&str, &str, usize)> = spread
        .iter()
        .map(|c| {
            (
                c.repo_default.as_str(),
                c.package_default.as_str(),
                c.upstream,
            )
        })
        .collect();
    // A package named in packageNames stays as written for every upstream.
    assert_eq!(
        got,
        [
            ("r1", "a", 0),
            ("r1", "b", 1),
            ("r2", "fixed", 0),
            ("r2", "fixed", 1)
        ]
    );
}

/// Each upstream is found in its own bucket of one pass over the items: a thousand upstreams
/// over fifty thousand PackageRevisions take about as long as one pass (a scan of every item
/// per upstream would be 5 x 10^7 lookups, minutes here). Only a generous bound, against a
/// quadratic path.
#[test]
fn a_thousand_tagged_upstreams_over_fifty_thousand_revisions_resolve_in_one_pass() {
    let mut items = Vec::with_capacity(50_000);
    for p in 0..1_000 {
        for r in 1..=50 {
            let labels = if r == 25 {
                json!({"package-variant.fn.kpt.dev/tag-stable": "true"})
            } else {
                json!({})
            };
            items.push(pr(&format!("p{p}"), r, "Published", labels));
        }
    }
    let upstreams: Vec<Value> = (0..1_000)
        .map(|p| json!({"repo": "blueprints", "package": format!("p{p}"), "tag": "stable"}))
        .collect();
    let s = set(json!({"upstreams": upstreams}));
    let items = from_json(&items);
    let start = Instant::now();
    let r = resolve(&s, &items, "default").unwrap_or_default();
    let took = start.elapsed();
    assert_eq!(r.len(), 1_000);
    assert!(r.iter().all(|u| u.upstream.revision == 25));
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// A thousand upstreams of one package with 20,000 revisions (issue 29): each was a scan of
/// the package's revisions (a tag: several), 100 s here for 200 tagged upstreams; now a lookup,
/// and a tag is resolved once.
#[test]
fn a_thousand_upstreams_of_one_package_are_lookups() {
    let items: Vec<Value> = (1..=20_000)
        .map(|r| pr("base", r, "Published", json!({})))
        .collect();
    let upstreams: Vec<Value> = (0..1_000)
        .map(|u| {
            if u % 2 == 0 {
                json!({"repo": "blueprints", "package": "base", "revision": 20_000 - u})
            } else {
                json!({"repo": "blueprints", "package": "base", "tag": "latest"})
            }
        })
        .collect();
    let s = set(json!({"upstreams": upstreams}));
    let items = from_json(&items);
    let start = Instant::now();
    let r = resolve(&s, &items, "default").unwrap_or_default();
    let took = start.elapsed();
    assert_eq!(r.len(), 1_000);
    assert_eq!(r[0].upstream.revision, 20_000);
    assert_eq!(r[2].upstream.revision, 19_998);
    assert_eq!(r[1].upstream.revision, 20_000);
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

#[test]
fn a_tag_on_a_revision_without_number_is_an_error() {
    let mut no_number = pr(
        "base",
        1,
        "Published",
        json!({"package-variant.fn.kpt.dev/tag-stable": "true"}),
    );
    no_number["spec"]
        .as_object_mut()
        .map(|s| s.remove("revision"));
    let s = set(json!({"upstream": {"repo": "blueprints", "package": "base", "tag": "stable"}}));
    let e = resolve(&s, &from_json(&[no_number]), "default").unwrap_err();
    assert!(
        e[0].message.contains("which has no spec.revision"),
        "{}",
        e[0].message
    );
    assert_eq!(e[0].field_path.as_deref(), Some("spec.upstream.tag"));
}
