//! Failures you can see (issue 31 item 3, nephio#730), through the binary: a variant's
//! downstream PackageRevision (`porch.kpt.dev/v1alpha2`) whose `Rendered` or `Ready` is not
//! `True` makes the variant blocking under `rollout.requireReady`, whatever the variant's own
//! status says, and the summary lists it with the condition's message. Which revisions count
//! (drafts, else the newest published), what is ignored (other packages, namespaces, v1alpha1)
//! and what is refused.

mod common;

use common::{example_objects, items_of, run_json};
use serde_json::{json, Value};

const EXT: &str = "fn.kpt.dev/v1alpha1";
const REQUIRE_READY: &str = r#"{"waveExpr": "int(target.labels['wave'])", "requireReady": true}"#;

fn rollout() -> Value {
    serde_json::from_str(REQUIRE_READY).unwrap()
}

fn upstream(revision: i64) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
        "metadata": {"name": format!("blueprints.base.v{revision}")},
        "spec": {"repository": "blueprints", "packageName": "base", "revision": revision,
            "lifecycle": "Published"}})
}

/// Six sites: site-00 and site-01 in wave 1, the others in wave 2.
fn fleet() -> Vec<Value> {
    let mut items = vec![upstream(1), upstream(2)];
    items.extend((0..6).map(|i| {
        json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "Repository",
            "metadata": {"name": format!("site-{i:02}"),
                "labels": {"fleet": "yes", "wave": if i < 2 { "1" } else { "2" }}},
            "spec": {"type": "git"}})
    }));
    items
}

fn set(revision: i64, rollout: &Value) -> Value {
    let mut s = json!({"apiVersion": EXT, "kind": "PackageVariantSet",
        "metadata": {"name": "fleet"},
        "spec": {"upstream": {"repo": "blueprints", "package": "base", "revision": revision},
            "targets": [{"repositorySelector": {"matchLabels": {"fleet": "yes"}}}]}});
    if !rollout.is_null() {
        s["spec"]["rollout"] = rollout.clone();
    }
    s
}

/// Every variant without a status reports Ready True, as Porch's controller would.
fn controller(items: &[Value]) -> Vec<Value> {
    items
        .iter()
        .cloned()
        .map(|mut v| {
            if v["kind"] == "PackageVariant" && v.get("status").is_none() {
                v["status"] = json!({"conditions": [{"type": "Ready", "status": "True",
                    "reason": "NoErrors",
                    "message": "successfully ensured downstream package variant"}]});
            }
            v
        })
        .collect()
}

/// The sites whose variant is on revision 2.
fn on_2(items: &[Value]) -> Vec<String> {
    let mut sites: Vec<String> = items
        .iter()
        .filter(|v| v["kind"] == "PackageVariant" && v["spec"]["upstream"]["revision"] == 2)
        .map(|v| {
            v["spec"]["downstream"]["repo"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    sites.sort();
    sites
}

fn summary(out: &Value) -> String {
    out["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| r["message"].as_str())
        .find(|m| m.starts_with("PackageVariantSet"))
        .unwrap_or("")
        .to_string()
}

/// The fleet after wave 1 went to revision 2, every variant reporting Ready True.
fn after_wave_1() -> Vec<Value> {
    let (out, parsed) = run_json(&fleet(), &set(1, &rollout()));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let (out, parsed) = run_json(&controller(&items_of(&parsed)), &set(2, &rollout()));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let items = controller(&items_of(&parsed));
    assert_eq!(on_2(&items), ["site-00", "site-01"]);
    items
}

/// A v1alpha2 downstream PackageRevision of `repo`/`package`.
fn downstream(name: &str, repo: &str, lifecycle: &str, conditions: Value) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha2", "kind": "PackageRevision",
        "metadata": {"name": name},
        "spec": {"repository": repo, "packageName": "base", "workspaceName": name,
            "lifecycle": lifecycle},
        "status": {"conditions": conditions}})
}

fn condition(kind: &str, status: &str, message: &str) -> Value {
    let reason = if status == "False" {
        "RenderFailed"
    } else {
        "Rendered"
    };
    json!({"type": kind, "status": status, "reason": reason, "message": message,
        "lastTransitionTime": "2026-11-27T12:00:00Z"})
}

/// One run at revision 2 with `extra` items: its output items and summary.
fn step(items: &[Value], extra: &[Value], rollout: &Value) -> (Vec<Value>, Vec<Value>, String) {
    let mut input = items.to_vec();
    input.extend(extra.iter().cloned());
    let (out, parsed) = run_json(&input, &set(2, rollout));
    assert_eq!(out.code, 0, "{}", out.stdout);
    (input, items_of(&parsed), summary(&parsed))
}

const FAILED: &str = "pipeline.mutators[0] (set-labels): exit code 1";

#[test]
fn a_downstream_that_failed_to_render_blocks_although_its_variant_is_ready() {
    let items = after_wave_1();
    let failed = downstream(
        "site-00.base.packagevariant-2",
        "site-00",
        "Draft",
        json!([
            condition("Rendered", "False", FAILED),
            condition("Ready", "False", "")
        ]),
    );
    let (input, out, summary) = step(&items, &[failed], &rollout());
    // Nothing moves: fleet-site-00-base reports Ready True, but its downstream did not render.
    assert_eq!(out, input, "{summary}");
    assert!(
        summary.contains("0 upgraded, 4 waiting")
            && summary.contains(", 1 blocking (fleet-site-00-base): requireReady waits"),
        "{summary}"
    );
    assert!(
        summary.contains(&format!(
            "; 1 with a downstream not ready (fleet-site-00-base: PackageRevision \"site-00.base.packagevariant-2\" Rendered False (RenderFailed): {FAILED:?})"
        )),
        "{summary}"
    );
}

#[test]
fn a_downstream_that_is_not_ready_blocks_likewise() {
    let items = after_wave_1();
    let not_ready = downstream(
        "site-01.base.packagevariant-2",
        "site-01",
        "Proposed",
        json!([condition("Rendered", "True", "ok"),
            {"type": "Ready", "status": "False", "reason": "Pending",
                "message": "readiness gate config.injection not met"}]),
    );
    let (input, out, summary) = step(&items, &[not_ready], &rollout());
    assert_eq!(out, input, "{summary}");
    assert!(
        summary.contains("1 blocking (fleet-site-01-base)")
            && summary.contains("(fleet-site-01-base: PackageRevision \"site-01.base.packagevariant-2\" Ready False (Pending): \"readiness gate config.injection not met\")"),
        "{summary}"
    );
    // Unknown (not rendered yet) and a True of an older generation block too.
    for (conditions, said) in [
        (
            json!([condition("Rendered", "Unknown", "render requested")]),
            "Rendered Unknown (Rendered): \"render requested\"",
        ),
        (
            json!([{"type": "Rendered", "status": "True", "observedGeneration": 1}]),
            "Rendered True for generation 1 (the revision is at 2)",
        ),
    ] {
        let mut pr = downstream(
            "site-01.base.packagevariant-2",
            "site-01",
            "Draft",
            conditions,
        );
        pr["metadata"]["generation"] = json!(2);
        let (input, out, summary) = step(&items, &[pr], &rollout());
        assert_eq!(out, input, "{summary}");
        assert!(summary.contains(said), "{said}: {summary}");
    }
}

#[test]
fn a_rendered_and_ready_downstream_does_not_block() {
    let items = after_wave_1();
    let fine = ["site-00", "site-01"].map(|site| {
        downstream(
            &format!("{site}.base.packagevariant-2"),
            site,
            "Draft",
            json!([
                condition("Rendered", "True", "ok"),
                condition("Ready", "True", "ok")
            ]),
        )
    });
    let (_, out, summary) = step(&items, &fine, &rollout());
    assert_eq!(on_2(&out).len(), 6, "{summary}");
    assert!(
        !summary.contains("not ready") && !summary.contains("blocking"),
        "{summary}"
    );
    // No downstream given: as before.
    let (_, out, summary) = step(&items, &[], &rollout());
    assert_eq!(on_2(&out).len(), 6, "{summary}");
}

#[test]
fn only_the_revisions_the_variant_works_on_count() {
    let items = after_wave_1();
    let published = |name: &str, revision: i64, status: &str| {
        let mut pr = downstream(
            name,
            "site-00",
            "Published",
            json!([condition("Rendered", status, FAILED)]),
        );
        pr["status"]["revision"] = json!(revision);
        pr
    };
    // An older published revision failed; the newest is fine: no block.
    let history = [
        published("site-00.base.v1", 1, "False"),
        published("site-00.base.v2", 2, "True"),
    ];
    let (_, out, summary) = step(&items, &history, &rollout());
    assert_eq!(on_2(&out).len(), 6, "{summary}");
    // A draft is newer than any published revision: its failure counts.
    let mut with_draft = history.to_vec();
    with_draft.push(downstream(
        "site-00.base.packagevariant-3",
        "site-00",
        "Draft",
        json!([condition("Rendered", "False", FAILED)]),
    ));
    let (input, out, summary) = step(&items, &with_draft, &rollout());
    assert_eq!(out, input, "{summary}");
    assert!(
        summary.contains("PackageRevision \"site-00.base.packagevariant-3\" Rendered False"),
        "{summary}"
    );
    // The newest published one failed: it counts.
    let newest = [
        published("site-00.base.v1", 1, "True"),
        published("site-00.base.v2", 2, "False"),
    ];
    let (input, out, summary) = step(&items, &newest, &rollout());
    assert_eq!(out, input, "{summary}");
    assert!(
        summary.contains("\"site-00.base.v2\" Rendered False"),
        "{summary}"
    );
}

#[test]
fn other_packages_namespaces_and_v1alpha1_are_not_read() {
    let items = after_wave_1();
    let failing = json!([condition("Rendered", "False", FAILED)]);
    let other_package = {
        let mut pr = downstream("site-00.other.x", "site-00", "Draft", failing.clone());
        pr["spec"]["packageName"] = json!("other");
        pr
    };
    let mut other_namespace = downstream("site-00.base.y", "site-00", "Draft", failing.clone());
    other_namespace["metadata"]["namespace"] = json!("elsewhere");
    let (_, out, summary) = step(&items, &[other_package, other_namespace], &rollout());
    assert_eq!(on_2(&out).len(), 6, "{summary}");
    assert!(!summary.contains("not ready"), "{summary}");
    // v1alpha1 has no render state: not read, and requireReady says what to give instead.
    let mut v1 = downstream("site-00.base.z", "site-00", "Draft", failing);
    v1["apiVersion"] = json!("porch.kpt.dev/v1alpha1");
    let mut input = items.clone();
    input.push(v1);
    let (out, parsed) = run_json(&input, &set(2, &rollout()));
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(on_2(&items_of(&parsed)).len(), 6);
    let warning = parsed["results"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|r| r["severity"] == "warning")
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(
        warning["field"]["path"], "spec.rollout.requireReady",
        "{warning}"
    );
    assert!(
        warning["message"].as_str().unwrap_or("").contains(
            "1 with a downstream given only in porch.kpt.dev/v1alpha1 (fleet-site-00-base): porch.kpt.dev/v1alpha1 has no render state"
        ) && warning["message"].as_str().unwrap_or("").contains("kubectl get packagerevisions.v1alpha2.porch.kpt.dev -n default -o yaml"),
        "{warning}"
    );
}

#[test]
fn the_summary_lists_failed_renders_without_a_rollout_too() {
    let items = after_wave_1();
    let failed = downstream(
        "site-03.base.packagevariant-1",
        "site-03",
        "Draft",
        json!([condition("Rendered", "False", FAILED)]),
    );
    let (_, out, summary) = step(&items, &[failed], &Value::Null);
    assert_eq!(on_2(&out).len(), 6, "{summary}");
    assert!(
        summary.contains(&format!("; 1 with a downstream not ready (fleet-site-03-base: PackageRevision \"site-03.base.packagevariant-1\" Rendered False (RenderFailed): {FAILED:?})")),
        "{summary}"
    );
}

#[test]
fn what_is_not_understood_is_refused_and_nothing_changes() {
    let items = after_wave_1();
    let bad = |lifecycle: &str, conditions: Value| {
        downstream(
            "site-00.base.packagevariant-2",
            "site-00",
            lifecycle,
            conditions,
        )
    };
    for (pr, message, field) in [
        (
            bad("Approved", json!([])),
            "is \"Approved\": a PackageRevision's lifecycle is Draft, Proposed, Published or DeletionProposed",
            "spec.lifecycle",
        ),
        (
            bad("Draft", json!({"Rendered": "False"})),
            "must be a list of conditions ({type, status, reason, message})",
            "status.conditions",
        ),
        (
            bad("Draft", json!([condition("Rendered", "True", ""), condition("Rendered", "False", "")])),
            "is a second condition of type Rendered: the API server keeps one condition per type",
            "status.conditions[1]",
        ),
        (
            bad("Draft", json!([{"type": "Ready", "status": "false"}])),
            "is \"false\": a condition's status is True, False or Unknown",
            "status.conditions[0].status",
        ),
    ] {
        let mut input = items.clone();
        input.push(pr);
        let (out, parsed) = run_json(&input, &set(2, &rollout()));
        assert_eq!(out.code, 1, "{}", out.stdout);
        assert_eq!(items_of(&parsed), input, "{message}");
        let errors: Vec<&Value> = parsed["results"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|r| r["severity"] == "error")
            .collect();
        assert_eq!(errors.len(), 1, "{errors:#?}");
        assert!(
            errors[0]["message"].as_str().unwrap_or("").contains(message)
                && errors[0]["field"]["path"] == field
                && errors[0]["resourceRef"]["name"] == "site-00.base.packagevariant-2",
            "{message}: {errors:#?}"
        );
    }
}

/// `examples/pvs-rollout/render-failed` (step 2's input and the canary's failed downstream)
/// through the binary: nothing changes, and the summary names the canary and the message.
#[test]
fn the_example_render_failed_changes_nothing() {
    let (items, config) = example_objects("pvs-rollout/render-failed");
    let (out, parsed) = run_json(&items, &config);
    assert_eq!(out.code, 0, "{}", out.stdout);
    assert_eq!(items_of(&parsed), items);
    let summary = summary(&parsed);
    assert!(
        summary.contains("0 upgraded, 5 waiting")
            && summary.contains("1 blocking (fleet-base-canary-1-base)")
            && summary.contains("; 1 with a downstream not ready (fleet-base-canary-1-base: PackageRevision \"canary-1.base.packagevariant-2\" Rendered False (RenderFailed): \"pipeline.mutators[0] (set-labels): exit code 1\")"),
        "{summary}"
    );
}
