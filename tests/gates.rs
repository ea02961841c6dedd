//! Issue 40, through the binary: every gate holds whatever the spelling of what it reads.
//! A fleet pinned by `workspaceName` (or by a revision it cannot read) never moves to a
//! revision nobody activated; a variant on the new revision, however spelled, blocks under
//! `requireReady`; numbers that are not integers are refused on their field; a paused wave
//! waits for its approval when its predecessors are created in the same run. Every refusal
//! leaves the items as they came.

mod common;

use common::{base_revision, error_fields, is_variant, items_of, run_json, upstreams_by_site};
use serde_json::{json, Value};

const EXT: &str = "fn.kpt.dev/v1alpha1";
const ACTIVATE: &str = "package-variant.fn.kpt.dev/activate-revision";
const APPROVED: &str = "package-variant.fn.kpt.dev/approved-wave";

fn revision(r: i64, tagged: bool, v2: bool) -> Value {
    base_revision(r, tagged, v2)
}

/// Site `i` in wave `wave`.
fn site(i: usize, wave: i64) -> Value {
    json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "Repository",
        "metadata": {"name": format!("site-{i}"), "labels": {"wave": wave.to_string()}},
        "spec": {"type": "git"}})
}

/// The extension set over every site, at `upstream`, with `spec` fields and `annotations`.
fn set(upstream: Value, extra: Value, annotations: Value) -> Value {
    let mut s = json!({"apiVersion": EXT, "kind": "PackageVariantSet",
        "metadata": {"name": "fleet", "annotations": annotations},
        "spec": {"upstream": upstream,
            "targets": [{"repositorySelector": {"matchExpressions": [{"key": "wave", "operator": "Exists"}]}}]}});
    if let (Some(spec), Some(extra)) = (s["spec"].as_object_mut(), extra.as_object()) {
        spec.extend(extra.clone());
    }
    s
}

fn tagged() -> Value {
    json!({"repo": "blueprints", "package": "base", "tag": "stable"})
}

fn at(r: i64) -> Value {
    json!({"repo": "blueprints", "package": "base", "revision": r})
}

/// Ready True on every variant without a status, as a controller writes it.
fn ready(items: &[Value]) -> Vec<Value> {
    let mut items = items.to_vec();
    for v in items.iter_mut().filter(|v| is_variant(v)) {
        if v.get("status").is_none() {
            v["status"] = json!({"conditions": [{"type": "Ready", "status": "True"}]});
        }
    }
    items
}

/// One run that must succeed: its items (made Ready) and its messages.
fn step(items: &[Value], config: &Value) -> (Vec<Value>, String) {
    let (out, parsed) = run_json(items, config);
    assert_eq!(out.code, 0, "{}", out.stdout);
    (ready(&items_of(&parsed)), messages(&parsed))
}

/// Every result's message, one a line.
fn messages(out: &Value) -> String {
    out["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["message"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A run that must be refused: exit 1, the items exactly as given, and its results.
fn refused(items: &[Value], config: &Value) -> Value {
    let (out, parsed) = run_json(items, config);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(items_of(&parsed), items, "a refused run changed the items");
    parsed
}

/// The error results as (field, message).
fn errors(out: &Value) -> Vec<(String, String)> {
    error_fields(out)
        .into_iter()
        .map(|(message, field)| (field, message))
        .collect()
}

fn upstreams(items: &[Value]) -> Vec<(String, Value)> {
    upstreams_by_site(items)
}

/// Four sites (waves 1, 1, 2, 2) with variants at revision 1, made by `config`, then the
/// revisions with the tag on `tag`.
fn fleet_at_1(config: &Value, tag: i64, v2: bool) -> Vec<Value> {
    let mut items: Vec<Value> = (1..=3).map(|r| revision(r, r == 1, v2)).collect();
    items.extend([site(0, 1), site(1, 1), site(2, 2), site(3, 2)]);
    let (made, _) = step(&items, config);
    made.into_iter()
        .map(|v| {
            if v["kind"] == "PackageRevision" {
                let r = v["metadata"]["name"].as_str().unwrap_or("").to_string();
                return revision(
                    r[r.len() - 1..].parse().unwrap(),
                    r.ends_with(&tag.to_string()),
                    v2,
                );
            }
            v
        })
        .collect()
}

/// `items` with each variant's `spec.upstream` rewritten by `f`.
fn respelled(items: &[Value], f: impl Fn(&mut Value)) -> Vec<Value> {
    let mut items = items.to_vec();
    for v in items.iter_mut().filter(|v| is_variant(v)) {
        f(&mut v["spec"]["upstream"]);
    }
    items
}

#[test]
fn a_fleet_pinned_by_workspace_is_on_its_revision_and_the_moved_tag_is_only_offered() {
    for v2 in [false, true] {
        let manual = set(
            tagged(),
            json!({"revisionActivationPolicy": "Manual"}),
            json!({}),
        );
        let fleet = fleet_at_1(&manual, 2, v2);
        for spelling in [
            json!({"workspaceName": "v1"}),
            json!({"workspaceName": "v1", "revision": 1}),
        ] {
            let items = respelled(&fleet, |u| {
                u.as_object_mut().unwrap().remove("revision");
                u.as_object_mut()
                    .unwrap()
                    .extend(spelling.as_object().unwrap().clone());
            });
            let (out, said) = step(&items, &manual);
            // On revision 1 in either spelling: a respell is an ordinary update, never a pin
            // (issue 48, item 6), and nothing moves to revision 2.
            assert!(
                upstreams(&out).iter().all(|(_, u)| u["revision"] == 1
                    || (u.get("revision").is_none() && u["workspaceName"] == "v1")),
                "v1alpha2 {v2}, {spelling}: {said}"
            );
            assert_eq!(out.len(), items.len());
            assert!(
                said.contains("names revision 2 (PackageRevision \"blueprints.base.v2\"): offered, not applied (spec.revisionActivationPolicy: Manual); the active revision stays 1"),
                "{said}"
            );
            // Activated, it moves (all at once without a rollout).
            let activated = set(
                tagged(),
                json!({"revisionActivationPolicy": "Manual"}),
                json!({ACTIVATE: "2"}),
            );
            let (out, said) = step(&items, &activated);
            assert!(
                upstreams(&out).iter().all(|(_, u)| u["revision"] == 2),
                "{said}"
            );
        }
    }
}

#[test]
fn a_revision_that_cannot_be_told_is_refused_naming_the_variant_and_field() {
    let manual = set(
        tagged(),
        json!({"revisionActivationPolicy": "Manual"}),
        json!({}),
    );
    let fleet = fleet_at_1(&manual, 2, false);
    let cases: [(Value, &str, &str); 8] = [
        (json!({"revision": "1"}), "spec.upstream.revision", "is the string \"1\": Porch's schema takes an integer here; write 1 without quotes"),
        (json!({"revision": "v1"}), "spec.upstream.revision", "is the string \"v1\""),
        (json!({"revision": 1.5}), "spec.upstream.revision", "is 1.5, not a whole number"),
        (json!({"revision": 1.0}), "spec.upstream.revision", "not a whole number"),
        (json!({"revision": -1}), "spec.upstream.revision", "main-branch placeholder"),
        (json!({}), "spec.upstream", "gives neither revision nor workspaceName"),
        (json!({"workspaceName": "v9"}), "spec.upstream.workspaceName", "is \"v9\", but no PackageRevision of blueprints/base with that workspace is among the input items"),
        (json!({"workspaceName": "v2", "revision": 1}), "spec.upstream", "says revision 1 but workspaceName \"v2\", which is revision 2"),
    ];
    for (spelling, field, says) in cases {
        // One variant of the four spelled so: that alone must stop the run.
        let mut items = fleet.clone();
        let v = items.iter_mut().find(|v| is_variant(v)).unwrap();
        let name = v["metadata"]["name"].as_str().unwrap().to_string();
        let u = v["spec"]["upstream"].as_object_mut().unwrap();
        u.remove("revision");
        u.extend(spelling.as_object().unwrap().clone());
        let out = refused(&items, &manual);
        let errors = errors(&out);
        assert!(
            errors.iter().any(|(f, m)| f == field
                && m.starts_with(&format!("PackageVariant {name:?}: {field} "))
                && m.contains(says)),
            "{spelling}: {errors:?}"
        );
    }
    // The tag annotation never says which revision a variant is on.
    let items = respelled(&fleet, |u| {
        u.as_object_mut().unwrap().remove("revision");
    });
    let errors = errors(&refused(&items, &manual));
    assert!(
        errors
            .iter()
            .all(|(_, m)| m.contains("names tag \"stable\", which moves: a tag is not a revision")),
        "{errors:?}"
    );
    assert_eq!(errors.len(), 4, "{errors:?}");
}

#[test]
fn a_variant_on_the_new_revision_however_spelled_blocks_under_require_ready() {
    let rollout = json!({"rollout": {"requireReady": true, "maxUpgrades": 1}});
    for v2 in [false, true] {
        let fleet = fleet_at_1(&set(at(1), rollout.clone(), json!({})), 1, v2);
        // site-0 already on revision 2, not Ready (no status yet), spelled by its workspace.
        for spelling in [
            json!({"workspaceName": "v2"}),
            json!({"workspaceName": "v2", "revision": 2}),
            json!({"revision": 2}),
        ] {
            let mut items = fleet.clone();
            let v = items
                .iter_mut()
                .find(|v| is_variant(v) && v["spec"]["downstream"]["repo"] == "site-0")
                .unwrap();
            v.as_object_mut().unwrap().remove("status");
            let u = v["spec"]["upstream"].as_object_mut().unwrap();
            u.remove("revision");
            u.extend(spelling.as_object().unwrap().clone());
            let (out, said) = run_json(&items, &set(at(2), rollout.clone(), json!({})));
            assert_eq!(out.code, 0, "{}", out.stdout);
            let on_1 = upstreams(&items_of(&said))
                .iter()
                .filter(|(_, u)| u["revision"] == 1)
                .count();
            let said = messages(&said);
            assert_eq!(on_1, 3, "v1alpha2 {v2}, {spelling}: {said}");
            assert!(
                said.contains("0 upgraded, 3 waiting")
                    && said.contains("1 blocking (fleet-site-0-base)"),
                "{said}"
            );
        }
    }
}

#[test]
fn numbers_that_are_not_integers_are_refused_on_their_field() {
    let rollout = json!({"rollout": {"requireReady": true}});
    let config = set(at(2), rollout.clone(), json!({}));
    let fleet = fleet_at_1(&set(at(1), rollout, json!({})), 1, true);
    // (what to change, the field refused)
    type Edit = fn(&mut Vec<Value>);
    let edits: [(Edit, &str); 5] = [
        (
            |items| items[1]["status"]["revision"] = json!("2"),
            "status.revision",
        ),
        (
            |items| items[1]["metadata"]["generation"] = json!("2"),
            "metadata.generation",
        ),
        (
            |items| {
                items[1]["status"]["conditions"] =
                    json!([{"type": "Rendered", "status": "False", "observedGeneration": "1"}])
            },
            "status.conditions[0].observedGeneration",
        ),
        (
            |items| {
                let v = items.iter_mut().rfind(|v| is_variant(v)).unwrap();
                v["metadata"]["generation"] = json!("3");
            },
            "metadata.generation",
        ),
        (
            |items| {
                let v = items.iter_mut().rfind(|v| is_variant(v)).unwrap();
                v["status"]["conditions"][0]["observedGeneration"] = json!(2.5);
            },
            "status.conditions[0].observedGeneration",
        ),
    ];
    for (edit, field) in edits {
        let mut items = fleet.clone();
        edit(&mut items);
        let errors = errors(&refused(&items, &config));
        assert!(
            errors
                .iter()
                .any(|(f, m)| f == field && m.contains("Porch's schema takes an integer here")),
            "{field}: {errors:?}"
        );
    }
}

/// A downstream revision of site `i` (v1alpha2) at `revision` whose render `rendered`.
fn downstream(i: usize, revision: Value, rendered: &str) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha2", "kind": "PackageRevision",
        "metadata": {"name": format!("site-{i}.base.v{revision}")},
        "spec": {"repository": format!("site-{i}"), "packageName": "base",
            "workspaceName": format!("v{revision}"), "lifecycle": "Published"},
        "status": {"revision": revision,
            "conditions": [{"type": "Rendered", "status": rendered}]}})
}

#[test]
fn a_failed_render_of_a_revision_without_an_integer_number_is_refused_not_ranked_below() {
    let rollout =
        json!({"rollout": {"requireReady": true, "waveExpr": "int(target.labels['wave'])"}});
    let mut items = fleet_at_1(&set(at(1), rollout.clone(), json!({})), 1, true);
    // Wave 1 on 2, its render of revision 2 failed: revision "2" read as 0 ranked it below 1.
    for v in items.iter_mut().filter(|v| is_variant(v)) {
        if v["spec"]["downstream"]["repo"] == "site-0" {
            v["spec"]["upstream"]["revision"] = json!(2);
        }
    }
    items.push(downstream(0, json!(1), "True"));
    let config = set(at(2), rollout, json!({}));
    // Quoted, or missing on a published revision: either would rank it below revision 1.
    let mut quoted = items.clone();
    quoted.push(downstream(0, json!("2"), "False"));
    let mut missing = items.clone();
    missing.push(downstream(0, json!(2), "False"));
    if let Some(status) = missing.last_mut().and_then(|v| v["status"].as_object_mut()) {
        status.remove("revision");
    }
    let cases = [
        (quoted, "is the string \"2\""),
        (
            missing,
            "is missing: Porch numbers a revision when it publishes it",
        ),
    ];
    for (items, says) in cases {
        let errors = errors(&refused(&items, &config));
        assert!(
            errors
                .iter()
                .any(|(f, m)| f == "status.revision" && m.contains(says)),
            "{errors:?}"
        );
    }
}

#[test]
fn a_paused_wave_waits_for_its_approval_when_the_canary_is_new() {
    let rollout =
        json!({"rollout": {"waveExpr": "int(target.labels['wave'])", "pauseAfterWave": true}});
    for require_ready in [false, true] {
        let mut rollout = rollout.clone();
        rollout["rollout"]["requireReady"] = json!(require_ready);
        // Wave 2 exists at revision 1; the wave-1 canary is new.
        let mut items: Vec<Value> = (1..=2).map(|r| revision(r, false, false)).collect();
        items.extend([site(2, 2), site(3, 2)]);
        let (mut items, _) = step(&items, &set(at(1), rollout.clone(), json!({})));
        items.push(site(0, 1));
        let config = set(at(2), rollout.clone(), json!({}));
        let (out, said) = run_json(&items, &config);
        assert_eq!(out.code, 0, "{}", out.stdout);
        let out = items_of(&said);
        let said = messages(&said);
        let revisions: Vec<(String, Value)> = upstreams(&out)
            .into_iter()
            .map(|(s, u)| (s, u["revision"].clone()))
            .collect();
        assert_eq!(
            revisions,
            [
                ("site-0".into(), json!(2)),
                ("site-2".into(), json!(1)),
                ("site-3".into(), json!(1))
            ],
            "requireReady {require_ready}: {said}"
        );
        // The canary as created (no status): wave 2 still waits, blocked or unapproved.
        let (again, said) = run_json(&out, &config);
        let said = messages(&said);
        assert_eq!(items_of(&run_json(&out, &config).1), out, "{said}");
        assert_eq!(again.code, 0);
        if require_ready {
            assert!(said.contains("1 blocking (fleet-site-0-base)"), "{said}");
        } else {
            assert!(said.contains("wave 2 waits for approval"), "{said}");
        }
        // Ready: wave 2 waits for its approval, and moves with it.
        let (same, said) = step(&ready(&out), &config);
        assert_eq!(same, ready(&out), "{said}");
        assert!(said.contains("wave 2 (2 of 2): 0 upgraded, 2 waiting (fleet-site-2-base, fleet-site-3-base), wave 2 waits for approval"), "{said}");
        let approved = set(at(2), rollout, json!({APPROVED: "2"}));
        let (moved, _) = step(&ready(&out), &approved);
        assert!(upstreams(&moved).iter().all(|(_, u)| u["revision"] == 2));
    }
}
