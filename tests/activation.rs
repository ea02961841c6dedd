//! `spec.revisionActivationPolicy: Manual` and `spec.rollout.pauseAfterWave` of the
//! `fn.kpt.dev/v1alpha1` PackageVariantSet through the binary: a moved tag is offered, not
//! applied; the `activate-revision` annotation moves the fleet (through the rollout), the
//! `approved-wave` annotation lets the next wave start; run after run (each output, with the
//! Ready status a controller writes, is the next input) the fleet waits, moves on activation,
//! and stops changing. Then every error, with its message.

mod common;

use std::collections::BTreeMap;

use common::{error_fields, example_step, is_variant, items_of, reconciled, run_json};
use serde_json::{json, Value};

const EXT: &str = "fn.kpt.dev/v1alpha1";
const ACTIVATE: &str = "package-variant.fn.kpt.dev/activate-revision";
const APPROVED: &str = "package-variant.fn.kpt.dev/approved-wave";

/// Revision `r` of `blueprints/<package>`, tagged `stable` when `stable`.
fn package_revision(package: &str, r: i64, stable: bool) -> Value {
    let mut pr = json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
        "metadata": {"name": format!("blueprints.{package}.v{r}")},
        "spec": {"repository": "blueprints", "packageName": package, "revision": r,
            "lifecycle": "Published"}});
    if stable {
        pr["metadata"]["labels"] = json!({"package-variant.fn.kpt.dev/tag-stable": "true"});
    }
    pr
}

fn repository(name: &str, wave: &str) -> Value {
    json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "Repository",
        "metadata": {"name": name, "labels": {"wave": wave}}, "spec": {"type": "git"}})
}

/// Revisions 1 to 3 of `blueprints/base`, the tag `stable` on `tag`; six sites, two in wave 1,
/// four in wave 2.
fn namespace(tag: i64) -> Vec<Value> {
    let mut items: Vec<Value> = (1..=3)
        .map(|r| package_revision("base", r, r == tag))
        .collect();
    for (i, wave) in ["1", "1", "2", "2", "2", "2"].iter().enumerate() {
        items.push(repository(&format!("site-{i}"), wave));
    }
    items
}

/// The set following `stable` with `policy`, the rollout `rollout` (if any) and `annotations`.
fn set(policy: &str, rollout: Value, annotations: Value) -> Value {
    let mut s = json!({"apiVersion": EXT, "kind": "PackageVariantSet",
        "metadata": {"name": "fleet", "annotations": annotations},
        "spec": {"upstream": {"repo": "blueprints", "package": "base", "tag": "stable"},
            "revisionActivationPolicy": policy,
            "targets": [{"repositorySelector": {"matchExpressions": [{"key": "wave", "operator": "Exists"}]}}]}});
    if !rollout.is_null() {
        s["spec"]["rollout"] = rollout;
    }
    s
}

fn paused() -> Value {
    json!({"waveExpr": "int(target.labels['wave'])", "requireReady": true, "pauseAfterWave": true})
}

/// The variants' revisions by site.
fn revisions(items: &[Value]) -> BTreeMap<String, i64> {
    common::upstreams_by_site(items)
        .into_iter()
        .map(|(site, u)| (site, u["revision"].as_i64().unwrap_or(0)))
        .collect()
}

/// `[r0, r1, ...]`: the revision of site-0, site-1, ...
fn fleet_at(items: &[Value]) -> Vec<i64> {
    revisions(items).into_values().collect()
}

/// Info messages of a run.
fn infos(out: &Value) -> Vec<String> {
    out["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["severity"] == "info")
        .filter_map(|r| r["message"].as_str().map(str::to_string))
        .collect()
}

/// One run that must succeed: its items, reconciled, and its info messages.
fn step(items: &[Value], config: &Value) -> (Vec<Value>, Vec<String>) {
    let (out, parsed) = run_json(items, config);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let items = parsed["items"].as_array().cloned().unwrap_or_default();
    (reconciled(&items), infos(&parsed))
}

/// The fleet made at revision `r` (the tag on it, no fleet yet: the tag's revision).
fn fleet_made_at(r: i64) -> Vec<Value> {
    let (items, infos) = step(&namespace(r), &set("Manual", paused(), json!({})));
    assert_eq!(fleet_at(&items), vec![r; 6], "{infos:?}");
    assert!(!infos.iter().any(|m| m.contains("offered")), "{infos:?}");
    // Made under a moved tag: the items, with the tag moved.
    items
}

/// `items` with the tag `stable` moved to revision `r`.
fn tag_moved(items: &[Value], r: i64) -> Vec<Value> {
    items
        .iter()
        .cloned()
        .map(|mut v| {
            if v["kind"] == "PackageRevision" {
                let on = v["spec"]["revision"] == r;
                v["metadata"]["labels"] = if on {
                    json!({"package-variant.fn.kpt.dev/tag-stable": "true"})
                } else {
                    json!({})
                };
            }
            v
        })
        .collect()
}

#[test]
fn a_moved_tag_is_offered_then_activated_then_rolled_out_with_one_approval() {
    let items = tag_moved(&fleet_made_at(1), 2);
    // The tag moves to 2: nothing changes, the result offers 2 and says how to activate it.
    let manual = set("Manual", paused(), json!({}));
    let (out, infos) = step(&items, &manual);
    assert_eq!(out, items, "{infos:?}");
    assert!(
        infos.iter().any(|m| m.contains(
            "spec.upstream tag \"stable\" of blueprints/base names revision 2 (PackageRevision \"blueprints.base.v2\"): offered, not applied (spec.revisionActivationPolicy: Manual); the active revision stays 1. To activate it, annotate the set package-variant.fn.kpt.dev/activate-revision: \"2\""
        )),
        "{infos:?}"
    );
    // Again: still nothing.
    assert_eq!(step(&out, &manual).0, items);
    // A new site starts at the active revision, 1.
    let mut grown = items.clone();
    grown.push(repository("site-6", "2"));
    let (out, _) = step(&grown, &manual);
    assert_eq!(fleet_at(&out), vec![1; 7]);

    // The activation commit: wave 1 moves, wave 2 waits for its approval.
    let activated = set("Manual", paused(), json!({ACTIVATE: "2"}));
    let (out, infos) = step(&items, &activated);
    assert_eq!(fleet_at(&out), [2, 2, 1, 1, 1, 1], "{infos:?}");
    assert!(!infos.iter().any(|m| m.contains("offered")), "{infos:?}");
    let (out, infos) = step(&out, &activated);
    assert_eq!(fleet_at(&out), [2, 2, 1, 1, 1, 1], "{infos:?}");
    // The summary, before the per-target results.
    let summary = infos
        .iter()
        .find(|m| m.starts_with("PackageVariantSet"))
        .unwrap();
    assert!(
        summary.contains("wave 2 (2 of 2): 0 upgraded, 4 waiting")
            && summary.contains(
                ", wave 2 waits for approval: pauseAfterWave holds it until the set is annotated package-variant.fn.kpt.dev/approved-wave: \"2\""
            ),
        "{summary}"
    );
    // The tag moves on to 3 meanwhile: the fleet still goes to the activated 2, 3 is offered.
    let moved_on = tag_moved(&out, 3);
    let (again, infos) = step(&moved_on, &activated);
    assert_eq!(again, moved_on, "{infos:?}");
    assert!(
        infos.iter().any(|m| m.contains("names revision 3")
            && m.contains("the active revision stays 2")
            && m.contains("activate-revision: \"3\"")),
        "{infos:?}"
    );
    // The approval: wave 2 moves; then runs change nothing.
    let approved = set("Manual", paused(), json!({ACTIVATE: "2", APPROVED: "2"}));
    let (out, infos) = step(&moved_on, &approved);
    assert_eq!(fleet_at(&out), [2; 6], "{infos:?}");
    let (again, _) = step(&out, &approved);
    assert_eq!(again, out);
    // The approval left on the set is a warning once no wave is under way.
    let (_, parsed) = run_json(&out, &approved);
    let warnings: Vec<&str> = parsed["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["severity"] == "warning")
        .filter_map(|r| r["message"].as_str())
        .collect();
    assert_eq!(
        warnings,
        ["package-variant.fn.kpt.dev/approved-wave: \"2\" is still on the set, but no wave is being upgraded: remove it now, or the next upgrade is refused while its first wave moves (an approval given ahead of time names the revision it approves, \"W@R\")"]
    );
}

#[test]
fn without_a_rollout_the_activation_moves_the_whole_fleet() {
    let items = tag_moved(&fleet_made_at(1), 3);
    let config = set("Manual", Value::Null, json!({ACTIVATE: "3"}));
    let (out, infos) = step(&items, &config);
    assert_eq!(fleet_at(&out), [3; 6], "{infos:?}");
    assert_eq!(step(&out, &config).0, out);
}

#[test]
fn automatic_is_the_default_and_follows_the_tag() {
    let items = tag_moved(&fleet_made_at(1), 2);
    for policy in ["Automatic", ""] {
        let mut config = set(policy, Value::Null, json!({}));
        if policy.is_empty() {
            config["spec"]
                .as_object_mut()
                .unwrap()
                .remove("revisionActivationPolicy");
        }
        let (out, infos) = step(&items, &config);
        assert_eq!(fleet_at(&out), [2; 6], "{policy}: {infos:?}");
    }
}

#[test]
fn a_downgrade_is_refused_unless_written_with_a_bang() {
    let items = fleet_made_at(2);
    let (run, _) = run_json(&items, &set("Manual", Value::Null, json!({ACTIVATE: "1"})));
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("activates revision 1 of blueprints/base, below revision 2 the fleet is on: that is a downgrade; write \"1!\" to go back to it on purpose"),
        "{}",
        run.stdout
    );
    let (out, _) = step(&items, &set("Manual", Value::Null, json!({ACTIVATE: "1!"})));
    assert_eq!(fleet_at(&out), [1; 6]);
}

#[test]
fn a_fleet_part_way_keeps_its_revisions_until_something_is_activated() {
    // Wave 1 on 2, wave 2 on 1, the activation removed: nothing moves. A new site of wave 2
    // waits with its wave (created at 2, it would pass wave 2's unapproved pause); one of
    // wave 1 takes 2.
    let items = tag_moved(&fleet_made_at(1), 2);
    let (part, _) = step(&items, &set("Manual", paused(), json!({ACTIVATE: "2"})));
    assert_eq!(fleet_at(&part), [2, 2, 1, 1, 1, 1]);
    let mut grown = part.clone();
    grown.push(repository("site-6", "2"));
    grown.push(repository("site-7", "1"));
    let (out, infos) = step(&grown, &set("Manual", paused(), json!({})));
    assert_eq!(fleet_at(&out), [2, 2, 1, 1, 1, 1, 2], "{infos:?}");
    let waits = "1 waiting to be created (fleet-site-6-base): a new variant starts with its wave";
    assert!(infos.iter().any(|m| m.contains(waits)), "{infos:?}");
    // Run after run, until wave 2 is approved.
    let (again, infos) = step(&out, &set("Manual", paused(), json!({})));
    assert_eq!(again, out, "{infos:?}");
    assert!(
        infos
            .iter()
            .any(|m| m.contains(&format!("{waits}, wave 2 waits for approval"))),
        "{infos:?}"
    );
}

#[test]
fn several_upstreams_are_activated_by_name() {
    let mut items: Vec<Value> = (1..=2)
        .flat_map(|r| {
            [
                package_revision("base", r, r == 1),
                package_revision("mesh", r, r == 1),
            ]
        })
        .collect();
    items.push(repository("site-0", "1"));
    let mut config = set("Manual", Value::Null, json!({}));
    config["spec"].as_object_mut().unwrap().remove("upstream");
    config["spec"]["upstreams"] = json!([
        {"repo": "blueprints", "package": "base", "tag": "stable"},
        {"repo": "blueprints", "package": "mesh", "tag": "stable"}]);
    let (out, _) = step(&items, &config);
    let out = tag_moved(&out, 2);
    let (same, infos) = step(&out, &config);
    assert_eq!(same, out);
    assert!(
        infos.iter().any(|m| m
            .contains("spec.upstreams[1] tag \"stable\" of blueprints/mesh names revision 2")
            && m.contains("activate-revision: \"blueprints/mesh=2\"")),
        "{infos:?}"
    );
    config["metadata"]["annotations"] = json!({ACTIVATE: "blueprints/mesh=2"});
    let (moved, _) = step(&out, &config);
    let revisions: BTreeMap<String, i64> = moved
        .iter()
        .filter(|v| is_variant(v))
        .map(|v| {
            (
                v["spec"]["upstream"]["package"]
                    .as_str()
                    .unwrap()
                    .to_string(),
                v["spec"]["upstream"]["revision"].as_i64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        revisions,
        BTreeMap::from([("base".to_string(), 1), ("mesh".to_string(), 2)])
    );
}

// ------------------------------------------------------------------ errors

/// The (message, field) of each error of a run that must fail and change nothing.
fn errors_of(items: &[Value], config: &Value) -> Vec<(String, String)> {
    let (out, parsed) = run_json(items, config);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(items_of(&parsed), items, "a failed run changes nothing");
    error_fields(&parsed)
}

fn one_error(items: &[Value], config: &Value, message: &str, field: &str) {
    let found = errors_of(items, config);
    assert!(
        found.len() == 1 && found[0].0.contains(message) && found[0].1 == field,
        "want {message:?} on {field}, got {found:#?}"
    );
}

const ACTIVATE_FIELD: &str = "metadata.annotations[package-variant.fn.kpt.dev/activate-revision]";
const APPROVED_FIELD: &str = "metadata.annotations[package-variant.fn.kpt.dev/approved-wave]";

#[test]
fn closed_values_say_what_to_write() {
    let items = namespace(2);
    one_error(
        &items,
        &set("manual", Value::Null, json!({})),
        "\"manual\" is not one of the accepted values \"Automatic\" or \"Manual\"; did you mean \"Manual\"?",
        "spec.revisionActivationPolicy",
    );
    for bad in ["two", "0", "-1", "2 ", "v2", "2!!", ""] {
        one_error(
            &items,
            &set("Manual", Value::Null, json!({ACTIVATE: bad})),
            "is not a revision: write a revision number from 1, e.g. \"3\" (\"3!\" to go back",
            ACTIVATE_FIELD,
        );
    }
    one_error(
        &items,
        &set("Manual", Value::Null, json!({ACTIVATE: 2})),
        "invalid type: integer `2`, expected a string; quote it to make it a string",
        ACTIVATE_FIELD,
    );
    one_error(
        &items,
        &set("Automatic", Value::Null, json!({ACTIVATE: "2"})),
        "write spec.revisionActivationPolicy: Manual to activate revisions by hand, or remove the annotation",
        ACTIVATE_FIELD,
    );
}

#[test]
fn an_activation_of_no_published_revision_lists_the_revisions() {
    let mut items = namespace(2);
    items[2]["spec"]["lifecycle"] = json!("Draft");
    for (value, what) in [("7", "activates revision 7"), ("3", "activates revision 3")] {
        one_error(
            &items,
            &set("Manual", Value::Null, json!({ACTIVATE: value})),
            &format!("{what} of blueprints/base, but no Published PackageRevision of it has that revision; the revisions that exist: \"blueprints.base.v1\" (revision 1, Published), \"blueprints.base.v2\" (revision 2, Published), \"blueprints.base.v3\" (revision 3, Draft)"),
            ACTIVATE_FIELD,
        );
    }
}

#[test]
fn the_list_form_names_tagged_upstreams_only() {
    let mut items = namespace(2);
    items.push(package_revision("mesh", 4, false));
    let mut config = set("Manual", Value::Null, json!({}));
    config["spec"].as_object_mut().unwrap().remove("upstream");
    config["spec"]["upstreams"] = json!([
        {"repo": "blueprints", "package": "base", "tag": "stable"},
        {"repo": "blueprints", "package": "mesh", "revision": 4}]);
    for (value, message) in [
        ("2", "entry \"2\" is not repo/package=N: with spec.upstreams, write one entry per tagged upstream to activate, comma-separated, e.g. \"blueprints/base=3\""),
        ("blueprints/bsae=2", "entry \"blueprints/bsae=2\" names no tagged upstream of spec.upstreams (they are blueprints/base); did you mean \"blueprints/base\"?"),
        ("blueprints/mesh=4", "entry \"blueprints/mesh=4\": spec.upstreams[1] names its revision itself (no tag): change it there, or remove the entry"),
        ("blueprints/base=2,blueprints/base=3", "names blueprints/base twice: keep one entry"),
        ("blueprints/base=x", "entry \"blueprints/base=x\": \"x\" is not a revision"),
    ] {
        config["metadata"]["annotations"] = json!({ACTIVATE: value});
        one_error(&items, &config, message, ACTIVATE_FIELD);
    }
    // With spec.upstream at a revision: nothing to activate.
    let mut fixed = set("Manual", Value::Null, json!({ACTIVATE: "2"}));
    fixed["spec"]["upstream"] = json!({"repo": "blueprints", "package": "base", "revision": 2});
    one_error(
        &items,
        &fixed,
        "spec.upstream names its revision itself (no tag): change spec.upstream.revision to move the fleet, or remove the annotation",
        ACTIVATE_FIELD,
    );
}

#[test]
fn pausing_needs_waves_and_an_approval_of_their_kind() {
    let items = namespace(2);
    one_error(
        &items,
        &set("Manual", json!({"pauseAfterWave": true}), json!({})),
        "pauses after each wave, but without waveExpr the fleet is one wave: add waveExpr",
        "spec.rollout.pauseAfterWave",
    );
    one_error(
        &items,
        &set("Manual", Value::Null, json!({APPROVED: "2"})),
        "approves wave \"2\", but no rollout pauses after a wave: write spec.rollout.pauseAfterWave: true (with waveExpr), or remove the annotation",
        APPROVED_FIELD,
    );
    one_error(
        &items,
        &set("Manual", paused(), json!({APPROVED: "two"})),
        "approves wave \"two\", but spec.rollout.waveExpr gives ints: write the number of the last wave that may start, e.g. package-variant.fn.kpt.dev/approved-wave: \"2\"",
        APPROVED_FIELD,
    );
    one_error(
        &items,
        &set(
            "Manual",
            json!({"pauseAfterWave": "yes", "waveExpr": "1"}),
            json!({}),
        ),
        "",
        "spec.rollout.pauseAfterWave",
    );
}

#[test]
fn porchs_kind_refuses_the_fields_and_the_annotations() {
    let items = namespace(2);
    let mut porch = set("Manual", Value::Null, json!({}));
    porch["apiVersion"] = json!("config.porch.kpt.dev/v1alpha2");
    porch["spec"]["upstream"] = json!({"repo": "blueprints", "package": "base", "revision": 2});
    one_error(
        &items,
        &porch,
        "unknown field \"revisionActivationPolicy\": revisionActivationPolicy is an extension of this function, not a field of Porch's PackageVariantSet; write apiVersion: fn.kpt.dev/v1alpha1",
        "spec.revisionActivationPolicy",
    );
    porch["spec"]
        .as_object_mut()
        .unwrap()
        .remove("revisionActivationPolicy");
    porch["spec"]["rollout"] = json!({"pauseAfterWave": true});
    one_error(
        &items,
        &porch,
        "rollout is an extension of this function",
        "spec.rollout",
    );
    porch["spec"].as_object_mut().unwrap().remove("rollout");
    for (key, field) in [(ACTIVATE, ACTIVATE_FIELD), (APPROVED, APPROVED_FIELD)] {
        porch["metadata"]["annotations"] = json!({key: "2"});
        one_error(
            &items,
            &porch,
            &format!("{key} is an extension of this function, not an annotation Porch's PackageVariantSet reads; write apiVersion: fn.kpt.dev/v1alpha1 to use it (docs/fleet-safety.md), or remove it"),
            field,
        );
    }
}

// ------------------------------------------------------------------ the example, step by step

/// (name, spec, status) of each PackageVariant, the status as a controller writes it.
fn variant_states(items: &[Value]) -> Vec<(Value, Value, bool)> {
    let mut out: Vec<_> = items
        .iter()
        .filter(|v| is_variant(v))
        .map(|v| {
            (
                v["metadata"]["name"].clone(),
                v["spec"].clone(),
                v["status"]["conditions"][0]["status"] == "True",
            )
        })
        .collect();
    out.sort_by_key(|(n, _, _)| n.to_string());
    out
}

/// Each step's input is the previous step's output plus the Ready status a controller writes
/// (steps 2 and 4 take the same input as 1 and 3: only the set changes, by a commit); the
/// fleet waits, moves its canary on the activation, waits, moves the rest on the approval,
/// and stops changing.
#[test]
fn the_example_steps_follow_one_another() {
    let expected = [
        [1, 1, 1, 1],
        [2, 1, 1, 1],
        [2, 1, 1, 1],
        [2, 2, 2, 2],
        [2, 2, 2, 2],
    ];
    let mut previous: Option<Vec<Value>> = None;
    for (n, want) in (1..=5).zip(expected) {
        let (items, config) = example_step("pvs-activation", n);
        if let Some(prev) = &previous {
            assert_eq!(
                variant_states(prev),
                variant_states(&items),
                "step {n}'s input is not the previous step's output, reconciled"
            );
        }
        let (out, infos) = step(&items, &config);
        assert_eq!(fleet_at(&out), want, "step {n}: {infos:?}");
        // Steps 2 and 4 are commits to the set: their input is the step before's.
        previous = Some(if n == 1 || n == 3 { items } else { out });
    }
}

/// A rollback is a move like any other (docs/fleet-safety.md, "Rollback"): `"1!"` under the
/// rollout goes back wave by wave, the lowest (the canary) first, each next wave behind
/// readiness and its approval; the fast revert drops `spec.rollout`, and the whole fleet goes
/// back in one run with no gate.
#[test]
fn a_rollback_goes_canary_first_unless_the_rollout_is_dropped() {
    let items = fleet_made_at(2);
    let back = set("Manual", paused(), json!({ACTIVATE: "1!"}));
    let (out, infos) = step(&items, &back);
    assert_eq!(fleet_at(&out), [1, 1, 2, 2, 2, 2], "{infos:?}");
    // Wave 1 back on 1 but not Ready: nothing more moves, even once wave 2 is approved.
    let (run, parsed) = run_json(
        &out.iter()
            .cloned()
            .map(|mut v| {
                if is_variant(&v) && v["spec"]["upstream"]["revision"] == 1 {
                    v["status"] = json!({"conditions": [{"type": "Ready", "status": "False"}]});
                }
                v
            })
            .collect::<Vec<_>>(),
        &set("Manual", paused(), json!({ACTIVATE: "1!", APPROVED: "2"})),
    );
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        fleet_at(
            &items_of(&parsed)
                .into_iter()
                .filter(is_variant)
                .collect::<Vec<_>>()
        ),
        [1, 1, 2, 2, 2, 2]
    );
    // Ready, but wave 2 not approved: it waits.
    let (again, infos) = step(&out, &back);
    assert_eq!(fleet_at(&again), [1, 1, 2, 2, 2, 2], "{infos:?}");
    assert!(
        infos
            .iter()
            .any(|m| m.contains("wave 2 waits for approval")),
        "{infos:?}"
    );
    // Approved: wave 2 goes back.
    let (done, _) = step(
        &out,
        &set("Manual", paused(), json!({ACTIVATE: "1!", APPROVED: "2"})),
    );
    assert_eq!(fleet_at(&done), [1; 6]);
    // A set that names its revision goes back the same way when the revision is written back.
    let mut fixed = set("Automatic", paused(), json!({}));
    fixed["spec"]["upstream"] = json!({"repo": "blueprints", "package": "base", "revision": 1});
    let (out, infos) = step(&items, &fixed);
    assert_eq!(fleet_at(&out), [1, 1, 2, 2, 2, 2], "{infos:?}");

    // The fast revert: the same activation without spec.rollout moves every wave in one run,
    // whatever the fleet's readiness.
    let not_ready: Vec<Value> = items
        .iter()
        .cloned()
        .map(|mut v| {
            if is_variant(&v) {
                v["status"] = json!({"conditions": [{"type": "Ready", "status": "False"}]});
            }
            v
        })
        .collect();
    let (out, infos) = step(
        &not_ready,
        &set("Manual", Value::Null, json!({ACTIVATE: "1!"})),
    );
    assert_eq!(fleet_at(&out), [1; 6], "{infos:?}");
}
