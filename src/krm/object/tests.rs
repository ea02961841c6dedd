//! Unit tests of the metadata record.

use super::*;
use crate::yaml::parse;

fn meta(src: &str) -> MetaRecord {
    MetaRecord::from_node(&parse(src).unwrap_or_else(|e| panic!("{e}")))
}

/// The compact record reads back every text as written, labels apart from annotations.
#[test]
fn reads_back_what_it_recorded() {
    let r = meta(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: a\n  namespace: ns\n  \
         labels: {x: '1', '': ''}\n  annotations: {k: v, e: ~}\n",
    );
    let m = r.view();
    assert_eq!(
        (m.api_version(), m.kind(), m.name()),
        ("apps/v1", "Deployment", "a")
    );
    assert_eq!(
        (m.group(), m.version(), m.namespace()),
        ("apps", "v1", Some("ns"))
    );
    assert_eq!(m.labels().collect::<Vec<_>>(), [("x", "1"), ("", "")]);
    assert_eq!(m.annotations().len(), 2);
    assert_eq!(m.annotations().collect::<Vec<_>>(), [("k", "v"), ("e", "")]);
    assert_eq!(
        r,
        MetaRecord::new(
            "apps/v1",
            "Deployment",
            "a",
            Some("ns"),
            &[("x", "1"), ("", "")],
            &[("k", "v"), ("e", "")]
        )
    );
    assert_eq!(
        meta("kind: ''\nmetadata: {namespace: ''}\n").view(),
        ObjectMeta::BARE_OBJECT
    );
    assert_eq!(meta("- a\n").view(), ObjectMeta::NOT_OBJECT);
    let r = meta("apiVersion: v1\nkind: ConfigMap\nmetadata: {labels: {app: 'true'}}\n");
    let m = r.view();
    assert_eq!(
        (m.api_version(), m.kind(), m.name()),
        ("v1", "ConfigMap", "")
    );
    assert_eq!(m.labels().collect::<Vec<_>>(), [("app", "true")]);
    assert!(m.text.is_empty() && m != ObjectMeta::BARE_OBJECT);
}

/// A problem keeps what was read before it: results about the item still name it.
#[test]
fn a_problem_keeps_what_came_before_it() {
    let r = meta("apiVersion: v1\nkind: K\nmetadata:\n  name: n\n  labels: {a: b, c: [d]}\n");
    let m = r.view();
    assert_eq!((m.kind(), m.name()), ("K", "n"));
    assert_eq!(m.labels().collect::<Vec<_>>(), [("a", "b")]);
    assert_eq!(m.annotations().len(), 0);
    let p = m.problem.map(|p| p.field.as_str());
    assert_eq!(p, Some("metadata.labels[c]"));
    let r = meta("apiVersion: v1\nkind: K\nmetadata:\n  name: [n]\n");
    let m = r.view();
    assert_eq!((m.kind(), m.name(), m.namespace()), ("K", "", None));
}
