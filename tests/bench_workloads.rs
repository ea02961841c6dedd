//! The benchmark workloads (benches/support/workloads.rs) at small sizes, through the binary
//! and the expander: they stay valid inputs that do what the benchmarks claim, and the
//! PackageVariantSet run compiles each distinct CEL expression once. No timing here.

mod common;

#[path = "../benches/support/workloads.rs"]
mod workloads;

use package_variant::package_variant_set::expand;
use package_variant::yaml;
use serde_json::Value;

fn items_part(out: &str) -> &str {
    out.find("\nfunctionConfig:").map_or(out, |i| &out[..i])
}

/// W1: every injection point is filled and the run succeeds; W1-floor (its output plus the
/// in-cluster objects) is a fixed point: the same PackageVariant leaves the items as they are.
#[test]
fn w1_injects_every_point_and_w1_floor_is_a_fixed_point() {
    let p = workloads::W1::with_items(302);
    assert_eq!((p.points, p.in_cluster), (100, 100));
    let first = common::run(&workloads::w1(p));
    assert_eq!(first.code, 0, "{}\n{}", first.stderr, first.stdout);
    assert_eq!(
        first.stdout.matches("kpt.dev/injected-resource:").count(),
        100
    );
    assert_eq!(first.stdout.matches("status: \"True\"").count(), 100);
    // The in-cluster objects are inputs, not package: they are not written back.
    assert_eq!(
        items_part(&first.stdout)
            .matches("name: cluster-config-")
            .count(),
        0
    );

    let floor = common::run(&workloads::w1_floor(&first.stdout, p));
    assert_eq!(floor.code, 0, "{}", floor.stderr);
    assert_eq!(items_part(&floor.stdout), items_part(&first.stdout));
}

/// W3 runs cleanly.
#[test]
fn w3_runs() {
    let r = common::run(&workloads::w3());
    assert_eq!(r.code, 0, "{}\n{}", r.stderr, r.stdout);
}

/// W2: six distinct CEL expressions, each compiled once for the whole fleet; two thirds of
/// the repositories are selected; one in ten owned variants is obsolete.
#[test]
fn w2_compiles_each_expression_once() {
    let p = workloads::W2::with_repositories(300);
    let list = match yaml::parse(&workloads::w2(p)).map(|n| yaml::to_json(&n)) {
        Ok(Ok(v)) => v,
        _ => panic!("W2 parses"),
    };
    let items: Vec<Value> = list["items"].as_array().cloned().unwrap_or_default();
    let e = expand(&list["functionConfig"], &items);
    assert!(
        e.results
            .iter()
            .all(|r| r.severity != package_variant::krm::results::Severity::Error),
        "{:?}",
        e.results
    );
    assert_eq!(e.cel_compilations, 6);
    assert_eq!(e.updates.len() + e.creates.len(), 200);
    assert_eq!(e.updates.len(), p.owned - p.owned / 10);
    assert_eq!(e.deletes.len(), p.owned / 10);
}

/// W2 following a tag under `Manual`: with the tag's revision activated, the same output as
/// W2 following the tag (the benchmark compares like with like); with nothing activated, the
/// fleet stays on revision 2, the new targets start there, and revision 3 is offered.
#[test]
fn w2_tag_manual_does_what_w2_tag_does_once_activated() {
    let p = workloads::W2::with_repositories(300);
    let tagged = common::run(&workloads::w2_tagged(p));
    let manual = common::run(&workloads::w2_tagged_manual(p, Some("3")));
    assert_eq!(tagged.code, 0, "{}", tagged.stdout);
    assert_eq!(manual.code, 0, "{}", manual.stdout);
    assert_eq!(items_part(&manual.stdout), items_part(&tagged.stdout));
    assert!(items_part(&tagged.stdout).contains("revision: 3"));
    let offer = common::run(&workloads::w2_tagged_manual(p, None));
    assert_eq!(offer.code, 0, "{}", offer.stdout);
    let items = items_part(&offer.stdout);
    // Revision 3 only in its PackageRevision: every variant is at 2.
    assert_eq!(items.matches("revision: 3\n").count(), 1, "{items}");
    assert!(
        offer.stdout.contains("offered, not applied"),
        "{}",
        offer.stdout
    );
}
