//! Issue 42 through the binary: the rollout as its peers run it. `readyExpr` (readiness the
//! author defines), deletions in reverse waves (`deletionOrder: Reverse` and the wave
//! annotation), the render state of v1alpha1 downstreams read from the Kptfile in their
//! PackageRevisionResources, and one result per target; every bad value refused with the fix,
//! and Porch's kind refusing the new fields.

mod common;

use common::{error_fields, example_objects, is_variant, items_of, reconciled, run_json};
use serde_json::{json, Value};

const EXT: &str = "fn.kpt.dev/v1alpha1";
const WAVE: &str = "package-variant.fn.kpt.dev/wave";
const APPROVED: &str = "package-variant.fn.kpt.dev/approved-wave";

/// Six sites, two per wave: a and b in wave 1, c and d in 2, e and f in 3.
const SITES: [(&str, &str); 6] = [
    ("a", "1"),
    ("b", "1"),
    ("c", "2"),
    ("d", "2"),
    ("e", "3"),
    ("f", "3"),
];

fn blueprint(revision: i64) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
        "metadata": {"name": format!("blueprints.base.v{revision}")},
        "spec": {"repository": "blueprints", "packageName": "base", "revision": revision,
            "lifecycle": "Published"}})
}

fn fleet() -> Vec<Value> {
    let mut items = vec![blueprint(1), blueprint(2)];
    items.extend(SITES.iter().map(|(s, w)| {
        json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "Repository",
            "metadata": {"name": format!("site-{s}"), "labels": {"wave": w}},
            "spec": {"type": "git"}})
    }));
    items
}

/// The extension set over the sites whose wave is in `waves`, at `revision`.
fn set(revision: i64, waves: &[&str], rollout: Value) -> Value {
    json!({"apiVersion": EXT, "kind": "PackageVariantSet", "metadata": {"name": "fleet"},
        "spec": {"upstream": {"repo": "blueprints", "package": "base", "revision": revision},
            "targets": [{"repositorySelector": {"matchExpressions":
                [{"key": "wave", "operator": "In", "values": waves}]}}],
            "rollout": rollout}})
}

const ALL: [&str; 3] = ["1", "2", "3"];

fn waves() -> Value {
    json!({"waveExpr": "int(target.labels['wave'])"})
}

fn with(mut rollout: Value, key: &str, value: Value) -> Value {
    rollout[key] = value;
    rollout
}

/// One run that must succeed: the output items and results.
fn ok(items: &[Value], config: &Value) -> (Vec<Value>, Vec<Value>) {
    let (out, parsed) = run_json(items, config);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let results = parsed["results"].as_array().cloned().unwrap_or_default();
    (items_of(&parsed), results)
}

/// One run that must fail and change nothing: its error results' (message, field).
fn refused(items: &[Value], config: &Value) -> Vec<(String, String)> {
    let (out, parsed) = run_json(items, config);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(items_of(&parsed), items, "a refused run changes nothing");
    error_fields(&parsed)
}

/// The variant of site `s`.
fn variant<'a>(items: &'a [Value], s: &str) -> Option<&'a Value> {
    let name = format!("fleet-site-{s}-base");
    items
        .iter()
        .find(|v| is_variant(v) && v["metadata"]["name"] == name.as_str())
}

/// The sites whose variant is at `revision`, in order.
fn on(items: &[Value], revision: i64) -> String {
    SITES
        .iter()
        .filter(|(s, _)| {
            variant(items, s).is_some_and(|v| v["spec"]["upstream"]["revision"] == revision)
        })
        .map(|(s, _)| *s)
        .collect()
}

fn summary(results: &[Value]) -> String {
    results
        .iter()
        .filter_map(|r| r["message"].as_str())
        .find(|m| m.starts_with("PackageVariantSet"))
        .unwrap_or("")
        .to_string()
}

/// The per-target results: (severity, resourceRef name, message).
fn per_target(results: &[Value]) -> Vec<(String, String, String)> {
    results
        .iter()
        .filter(|r| {
            r["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("PackageVariant \""))
        })
        .map(|r| {
            (
                r["severity"].as_str().unwrap_or("").to_string(),
                r["resourceRef"]["name"].as_str().unwrap_or("").to_string(),
                r["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// The per-target results of blocking variants (severity warning).
fn blocking_targets(results: &[Value]) -> Vec<(String, String, String)> {
    per_target(results)
        .into_iter()
        .filter(|r| r.0 == "warning")
        .collect()
}

/// The fleet created at revision 1 under `rollout`, reconciled (every variant Ready).
fn at_revision_1(rollout: &Value) -> Vec<Value> {
    let (items, _) = ok(&fleet(), &set(1, &ALL, rollout.clone()));
    assert_eq!(on(&items, 1), "abcdef");
    reconciled(&items)
}

/// A v1alpha1 downstream PackageRevision of site `s`.
fn downstream(s: &str, workspace: &str, revision: i64, lifecycle: &str) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
        "metadata": {"name": format!("site-{s}.base.{workspace}")},
        "spec": {"repository": format!("site-{s}"), "packageName": "base",
            "workspaceName": workspace, "revision": revision, "lifecycle": lifecycle}})
}

/// The PackageRevisionResources of that revision, with `kptfile` as its Kptfile's text.
fn resources(s: &str, workspace: &str, revision: i64, kptfile: &str) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevisionResources",
        "metadata": {"name": format!("site-{s}.base.{workspace}")},
        "spec": {"repository": format!("site-{s}"), "packageName": "base",
            "workspaceName": workspace, "revision": revision,
            "resources": {"Kptfile": kptfile, "cm.yaml": "kind: ConfigMap\n"}}})
}

/// A Kptfile as kpt 1.0.0-beta.56 writes it after a render: `Rendered` with `status`.
fn kptfile(status: &str, message: &str) -> String {
    format!(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: base\nstatus:\n  conditions:\n  - type: Rendered\n    status: \"{status}\"\n    reason: {}\n    message: {message:?}\n  renderStatus:\n    mutationSteps:\n    - image: set-labels\n      exitCode: {}\n      when: \"true\"\n",
        if status == "True" { "RenderSuccess" } else { "RenderFailed" },
        if status == "True" { 0 } else { 1 },
    )
}

// ------------------------------------------------------------------ readyExpr

const PUBLISHED: &str = "revisions.size() > 0 && revisions[0].spec.lifecycle == 'Published'";

#[test]
fn ready_expr_decides_what_ready_means() {
    let rollout = with(waves(), "readyExpr", json!(PUBLISHED));
    let items = at_revision_1(&rollout);
    let (out, results) = ok(&items, &set(2, &ALL, rollout.clone()));
    assert_eq!(on(&out, 2), "ab", "{}", summary(&results));
    let mut items = reconciled(&out);
    // The canaries report Ready True, but their newest downstream is a draft: blocking.
    items.push(downstream("a", "v1", 1, "Published"));
    items.push(downstream("a", "v2", 0, "Draft"));
    items.push(downstream("b", "v2", 2, "Published"));
    let (out, results) = ok(&items, &set(2, &ALL, rollout.clone()));
    assert_eq!(out, items, "{}", summary(&results));
    let s = summary(&results);
    assert!(s.contains("1 blocking (fleet-site-a-base)"), "{s}");
    assert!(
        s.contains("makes readyExpr (spec.rollout.readyExpr) true"),
        "{s}"
    );
    let blocking = blocking_targets(&results);
    assert_eq!(blocking.len(), 1, "{blocking:?}");
    assert_eq!(blocking[0].1, "fleet-site-a-base");
    assert!(
        blocking[0].2.contains("blocking, wave \"1\"")
            && blocking[0].2.ends_with(": \"readyExpr is false (it read: Ready True; newest downstream revision \\\"site-a.base.v2\\\" Draft)\""),
        "{blocking:?}"
    );
    // Published: the next wave goes.
    let published = downstream("a", "v2", 2, "Published");
    let items: Vec<Value> = items
        .into_iter()
        .map(|v| {
            if v["metadata"]["name"] == "site-a.base.v2" {
                published.clone()
            } else {
                v
            }
        })
        .collect();
    let (out, results) = ok(&items, &set(2, &ALL, rollout));
    assert_eq!(on(&out, 2), "abcd", "{}", summary(&results));
}

#[test]
fn a_ready_expr_that_fails_for_a_variant_blocks_it_and_says_why() {
    let rollout = with(
        waves(),
        "readyExpr",
        json!("variant.status.phase == 'Healthy'"),
    );
    let items = at_revision_1(&rollout);
    let (out, _) = ok(&items, &set(2, &ALL, rollout.clone()));
    let items = reconciled(&out);
    let (out, results) = ok(&items, &set(2, &ALL, rollout));
    assert_eq!(out, items);
    let blocking: Vec<_> = blocking_targets(&results)
        .into_iter()
        .map(|r| r.2)
        .collect();
    assert_eq!(blocking.len(), 2, "{blocking:?}");
    assert!(
        blocking[0].contains("\"readyExpr failed: no such key: phase"),
        "{blocking:?}"
    );
}

#[test]
fn a_ready_expr_that_cannot_give_a_bool_is_refused_before_anything_runs() {
    let field = "spec.rollout.readyExpr";
    for (expr, message) in [
        (
            "variant.metadata.name + ''",
            "must give a bool (whether the variant is ready)",
        ),
        ("revisions.size()", "is of type int"),
        ("target.name == 'x'", "undeclared reference to 'target'"),
        (
            "upstream.name == 'x'",
            "the variables are variant, revisions",
        ),
        ("", "is empty"),
    ] {
        let found = refused(
            &fleet(),
            &set(2, &ALL, with(waves(), "readyExpr", json!(expr))),
        );
        assert_eq!(found.len(), 1, "{expr}: {found:?}");
        assert!(
            found[0].0.contains(message) && found[0].1 == field,
            "{expr}: {found:?}"
        );
    }
    let rollout = json!({"readyExpr": PUBLISHED, "requireReady": false});
    let found = refused(&fleet(), &set(2, &ALL, rollout));
    assert!(
        found[0].0.contains("requireReady: false waits for nothing"),
        "{found:?}"
    );
}

// ------------------------------------------------------------------ reverse deletions

#[test]
fn each_variant_records_its_wave_on_create_and_upgrade() {
    let items = at_revision_1(&waves());
    for (s, w) in SITES {
        assert_eq!(
            variant(&items, s).unwrap()["metadata"]["annotations"][WAVE],
            w,
            "site {s}"
        );
    }
    // A variant made before the annotation existed gets it when it is upgraded.
    let mut old = items.clone();
    for v in old.iter_mut().filter(|v| is_variant(v)) {
        v["metadata"]["annotations"]
            .as_object_mut()
            .unwrap()
            .remove(WAVE);
    }
    let (out, _) = ok(&old, &set(2, &ALL, waves()));
    assert_eq!(
        variant(&out, "a").unwrap()["metadata"]["annotations"][WAVE],
        "1"
    );
    assert!(variant(&out, "c").unwrap()["metadata"]["annotations"]
        .get(WAVE)
        .is_none());
}

#[test]
fn reverse_deletions_go_one_wave_per_run_highest_first() {
    let rollout = with(waves(), "deletionOrder", json!("Reverse"));
    let mut items = at_revision_1(&rollout);
    // The set keeps wave 1 only: wave 3 goes first, then wave 2.
    // Four of six: past the guard, which counts every deletion the plan intends (issue 48).
    let keep = allowing(set(1, &["1"], rollout.clone()), "75%");
    for (remaining, deleted) in [("abcd", "ef"), ("ab", "cd")] {
        let (out, results) = ok(&items, &keep);
        assert_eq!(on(&out, 1), remaining, "{}", summary(&results));
        let s = summary(&results);
        assert!(s.contains("; deletions in reverse waves: wave "), "{s}");
        let said: Vec<_> = per_target(&results)
            .into_iter()
            .filter(|r| r.2.contains(" deleted, wave"))
            .map(|r| r.1)
            .collect();
        let want: Vec<String> = deleted
            .chars()
            .map(|s| format!("fleet-site-{s}-base"))
            .collect();
        assert_eq!(said, want);
        items = out;
    }
    let (out, _) = ok(&items, &keep);
    assert_eq!(out, items, "nothing left to delete");
    // AllAtOnce (the default): both waves in one run (past the guard, allowed).
    let all = at_revision_1(&waves());
    let mut config = set(1, &["1"], waves());
    config["metadata"]["annotations"] =
        json!({"package-variant.fn.kpt.dev/allow-deletions": "all"});
    let (out, _) = ok(&all, &config);
    assert_eq!(on(&out, 1), "ab");
}

#[test]
fn a_variant_without_its_wave_counts_as_the_highest() {
    let rollout = with(waves(), "deletionOrder", json!("Reverse"));
    let mut items = at_revision_1(&rollout);
    for v in items
        .iter_mut()
        .filter(|v| v["metadata"]["name"] == "fleet-site-c-base")
    {
        v["metadata"]["annotations"]
            .as_object_mut()
            .unwrap()
            .remove(WAVE);
    }
    let (out, results) = ok(&items, &allowing(set(1, &["1"], rollout), "75%"));
    assert_eq!(on(&out, 1), "abdef", "{}", summary(&results));
    assert!(
        summary(&results).contains("1 without the package-variant.fn.kpt.dev/wave annotation (made before it existed, or by Porch) counted as the highest wave"),
        "{}",
        summary(&results)
    );
}

#[test]
fn a_paused_rollout_holds_each_deletion_wave_for_approval() {
    let rollout = json!({"waveExpr": "int(target.labels['wave'])", "deletionOrder": "Reverse",
        "pauseAfterWave": true});
    let items = at_revision_1(&rollout);
    let mut keep = allowing(set(1, &["1"], rollout), "75%");
    let (out, results) = ok(&items, &keep);
    assert_eq!(out, items, "{}", summary(&results));
    assert!(
        summary(&results).contains(&format!("wave 3 waits for approval: pauseAfterWave holds each deletion wave until the set is annotated {APPROVED}: \"3\"")),
        "{}",
        summary(&results)
    );
    keep["metadata"]["annotations"][APPROVED] = json!("3");
    let (out, _) = ok(&items, &keep);
    assert_eq!(on(&out, 1), "abcd");
    let (again, _) = ok(&out, &keep);
    assert_eq!(again, out, "wave 2 waits for an approval of 2");
    keep["metadata"]["annotations"][APPROVED] = json!("2");
    let (out, _) = ok(&out, &keep);
    assert_eq!(on(&out, 1), "ab");
}

#[test]
fn the_deletion_guard_counts_every_deletion_the_plan_intends_whatever_the_order() {
    // Issue 48, item 1: under Reverse the guard used to count this run's wave only, so a
    // selector that unselects the whole fleet took it down wave by wave.
    for order in ["Reverse", "AllAtOnce"] {
        let rollout = with(waves(), "deletionOrder", json!(order));
        let items = at_revision_1(&rollout);
        let none = set(1, &["9"], rollout.clone());
        let found = refused(&items, &none);
        assert!(
            found[0].0.starts_with(
                "refused: this run would delete 6 of the 6 PackageVariants the set owns"
            ) && found[0]
                .0
                .contains("that is every PackageVariant the set owns"),
            "{order}: {found:?}"
        );
        // Four of six is more than half: refused as well, whatever the order.
        let found = refused(&items, &set(1, &["1"], rollout.clone()));
        assert!(
            found[0].0.contains("would delete 4 of the 6"),
            "{order}: {found:?}"
        );
        // Allowed, it goes in the order asked for.
        let (out, _) = ok(&items, &allowing(none, "all"));
        let left = if order == "Reverse" { "abcd" } else { "" };
        assert_eq!(on(&out, 1), left, "{order}");
    }
}

/// `config` annotated `allow-deletions: share`.
fn allowing(mut config: Value, share: &str) -> Value {
    config["metadata"]["annotations"]["package-variant.fn.kpt.dev/allow-deletions"] = json!(share);
    config
}

#[test]
fn bad_deletion_orders_are_refused_with_the_fix() {
    let field = "spec.rollout.deletionOrder";
    let found = refused(
        &fleet(),
        &set(2, &ALL, with(waves(), "deletionOrder", json!("Backwards"))),
    );
    assert_eq!(
        found,
        [(
            "is \"Backwards\": write Reverse (one wave per run, the highest first) or AllAtOnce (the default: every deletion in one run)".to_string(),
            field.to_string()
        )]
    );
    let found = refused(&fleet(), &set(2, &ALL, json!({"deletionOrder": "Reverse"})));
    assert!(
        found[0]
            .0
            .contains("without waveExpr the fleet is one wave"),
        "{found:?}"
    );
    assert_eq!(found[0].1, field);
}

#[test]
fn porchs_kind_refuses_ready_expr_and_deletion_order_with_the_hint() {
    for rollout in [
        json!({"readyExpr": PUBLISHED}),
        json!({"deletionOrder": "Reverse"}),
    ] {
        let mut config = set(2, &ALL, rollout);
        config["apiVersion"] = json!("config.porch.kpt.dev/v1alpha2");
        let found = refused(&fleet(), &config);
        assert!(
            found[0]
                .0
                .contains("write apiVersion: fn.kpt.dev/v1alpha1 to use it"),
            "{found:?}"
        );
    }
}

// ------------------------------------------------------------------ v1alpha1 render state

/// Wave 1 on revision 2 and Ready, with `extra` items: the next run's output and results.
fn after_wave_1(rollout: &Value, extra: &[Value]) -> (Vec<Value>, Vec<Value>, Vec<Value>) {
    let items = at_revision_1(rollout);
    let (out, _) = ok(&items, &set(2, &ALL, rollout.clone()));
    let mut items = reconciled(&out);
    items.extend(extra.iter().cloned());
    let (out, results) = ok(&items, &set(2, &ALL, rollout.clone()));
    (items, out, results)
}

fn require_ready() -> Value {
    with(waves(), "requireReady", json!(true))
}

#[test]
fn a_failed_render_in_the_kptfile_blocks_the_rollout() {
    let failed = kptfile(
        "False",
        "pipeline.mutators[0] (set-labels): exit code 1\nstderr: boom",
    );
    let extra = [
        downstream("a", "v2", 0, "Draft"),
        resources("a", "v2", 0, &failed),
    ];
    let (items, out, results) = after_wave_1(&require_ready(), &extra);
    assert_eq!(out, items, "{}", summary(&results));
    let s = summary(&results);
    assert!(
        s.contains("1 with a downstream not ready (fleet-site-a-base: PackageRevisionResources \"site-a.base.v2\" Kptfile Rendered False (RenderFailed): \"pipeline.mutators[0] (set-labels): exit code 1\")"),
        "{s}"
    );
    let blocking = blocking_targets(&results);
    assert_eq!(blocking.len(), 1, "{blocking:?}");
    assert!(
        blocking[0].2.contains("Kptfile Rendered False"),
        "{blocking:?}"
    );
    // A readyExpr that says yes does not open the gate either.
    let rollout = with(waves(), "readyExpr", json!("true"));
    let (items, out, _) = after_wave_1(&rollout, &extra);
    assert_eq!(out, items);
}

#[test]
fn an_error_summary_blocks_and_only_the_revisions_worked_on_count() {
    let summary_only = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: base\nstatus:\n  renderStatus:\n    errorSummary: |\n      set-labels failed\n      more\n";
    let (items, out, results) =
        after_wave_1(&require_ready(), &[resources("b", "v2", 0, summary_only)]);
    assert_eq!(out, items);
    assert!(
        summary(&results).contains("Kptfile renderStatus.errorSummary: \"set-labels failed\""),
        "{}",
        summary(&results)
    );
    // An older published revision that failed is history: the newer one rendered.
    let extra = [
        downstream("a", "v1", 1, "Published"),
        resources("a", "v1", 1, &kptfile("False", "old failure")),
        downstream("a", "v2", 2, "Published"),
        resources("a", "v2", 2, &kptfile("True", "")),
    ];
    let (_, out, results) = after_wave_1(&require_ready(), &extra);
    assert_eq!(on(&out, 2), "abcd", "{}", summary(&results));
}

#[test]
fn a_kptfile_that_does_not_parse_is_refused_naming_the_revision() {
    let rollout = require_ready();
    let items = at_revision_1(&rollout);
    let (out, _) = ok(&items, &set(2, &ALL, rollout.clone()));
    let mut items = reconciled(&out);
    items.push(resources("a", "v2", 0, "status: [unclosed\n"));
    let found = refused(&items, &set(2, &ALL, rollout.clone()));
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0]
            .0
            .starts_with("of PackageRevisionResources \"site-a.base.v2\" does not parse (")
            && found[0].1 == "spec.resources.Kptfile",
        "{found:?}"
    );
    items.pop();
    items.push(resources("a", "v2", 0, "- a list\n"));
    let found = refused(&items, &set(2, &ALL, rollout));
    assert!(found[0].0.contains("is not a Kptfile"), "{found:?}");
}

#[test]
fn v1alpha1_render_state_is_read_as_strictly_as_v1alpha2() {
    // Issue 48, item 4: each leniency of the Kptfile reader opened the gate.
    let rollout = require_ready();
    let items = at_revision_1(&rollout);
    let (out, _) = ok(&items, &set(2, &ALL, rollout.clone()));
    let items = reconciled(&out);
    let config = set(2, &ALL, rollout.clone());
    let twice = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: base\nstatus:\n  conditions:\n  - type: Rendered\n    status: \"True\"\n  - type: Rendered\n    status: \"False\"\n";
    let mapping = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: base\nstatus:\n  conditions:\n    Rendered: \"True\"\n";
    let cases: [(Value, &str, &str); 5] = [
        (
            resources("a", "v2", 0, twice),
            "spec.resources.Kptfile",
            "the Kptfile's status.conditions[1] is a second condition of type Rendered",
        ),
        (
            resources("a", "v2", 0, mapping),
            "spec.resources.Kptfile",
            "the Kptfile's status.conditions must be a list of conditions",
        ),
        (
            resources("a", "v2", 0, ""),
            "spec.resources.Kptfile",
            "of PackageRevisionResources \"site-a.base.v2\" is empty",
        ),
        (
            resources("a", "v2", 0, "~\n"),
            "spec.resources.Kptfile",
            "is empty",
        ),
        (
            {
                let mut r = resources("a", "v2", 2, &kptfile("False", "boom"));
                r["spec"]["revision"] = json!("2");
                r
            },
            "spec.revision",
            "is the string \"2\": Porch's schema takes an integer here",
        ),
    ];
    for (extra, field, says) in cases {
        let mut given = items.clone();
        given.push(extra);
        let found = refused(&given, &config);
        assert!(
            found.iter().any(|(m, f)| f == field && m.contains(says)),
            "{says}: {found:?}"
        );
    }
}

// ------------------------------------------------------------------ per-target results

#[test]
fn each_target_has_one_result_after_the_summary() {
    let rollout = with(waves(), "maxUpgrades", json!(1));
    let (out, results) = ok(&fleet(), &set(1, &ALL, rollout.clone()));
    let created = per_target(&results);
    assert_eq!(created.len(), 6);
    let first = results.iter().position(|r| {
        r["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("PackageVariantSet"))
    });
    let first_target = results.iter().position(|r| {
        r["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("PackageVariant \""))
    });
    assert!(first < first_target, "the summary comes first");
    assert_eq!(
        created[0],
        (
            "info".to_string(),
            "fleet-site-a-base".to_string(),
            "PackageVariant \"fleet-site-a-base\" created, wave \"1\", upstream \"blueprints\"/\"base\" revision 1".to_string()
        )
    );
    let created_ref = &results[first_target.unwrap()]["resourceRef"];
    assert_eq!(created_ref["kind"], "PackageVariant");
    assert_eq!(created_ref["apiVersion"], "config.porch.kpt.dev/v1alpha1");
    let items = reconciled(&out);
    let (_, results) = ok(&items, &set(2, &ALL, rollout));
    let said: Vec<String> = per_target(&results).into_iter().map(|r| r.2).collect();
    assert_eq!(said.len(), 6, "{said:#?}");
    assert_eq!(
        said[0],
        "PackageVariant \"fleet-site-a-base\" upgraded, wave \"1\", upstream \"blueprints\"/\"base\" revision 1 -> \"blueprints\"/\"base\" revision 2"
    );
    assert_eq!(
        said[1],
        "PackageVariant \"fleet-site-b-base\" waits, wave \"1\", upstream \"blueprints\"/\"base\" revision 1 -> \"blueprints\"/\"base\" revision 2: \"maxUpgrades: the run's limit is reached\""
    );
    assert!(said[2].ends_with(": \"a later wave\""), "{said:#?}");
    assert!(said.iter().all(|m| !m.contains('\n')));
}

// ------------------------------------------------------------------ the example's steps

/// `examples/pvs-rollout/ready-expr`, `reverse-deletions` and `render-failed-v1alpha1`.
#[test]
fn the_examples_new_steps_do_what_their_readmes_say() {
    let (items, config) = example_objects("pvs-rollout/ready-expr");
    let (out, results) = ok(&items, &config);
    assert!(
        summary(&results).contains("1 blocking (fleet-base-canary-1-base)"),
        "{}",
        summary(&results)
    );
    assert_eq!(out, items);

    let (items, config) = example_objects("pvs-rollout/reverse-deletions");
    let (out, results) = ok(&items, &config);
    let gone: Vec<String> = items
        .iter()
        .filter(|v| is_variant(v) && !out.contains(v))
        .map(|v| v["metadata"]["name"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(
        gone,
        [
            "fleet-base-west-1-base",
            "fleet-base-west-2-base",
            "fleet-base-west-3-base"
        ],
        "{}",
        summary(&results)
    );

    let (items, config) = example_objects("pvs-rollout/render-failed-v1alpha1");
    let (out, results) = ok(&items, &config);
    assert_eq!(out, items);
    assert!(
        summary(&results).contains("Kptfile Rendered False"),
        "{}",
        summary(&results)
    );
}

// ------------------------------------------------------------------ at fleet scale

#[path = "../benches/support/workloads.rs"]
mod workloads;

/// The workload of `benches/rollout_results.sh`: every target of the fleet has its own result,
/// one bounded line, after the summary.
#[test]
fn the_rollout_results_workload_has_a_result_per_target() {
    let n = 2_000;
    let input = workloads::w2_rollout(workloads::W2::with_repositories(n));
    let out = common::run(&input);
    assert_eq!(
        out.code,
        0,
        "{}",
        &out.stdout[out.stdout.len().saturating_sub(2000)..]
    );
    let parsed =
        package_variant::yaml::to_json(&package_variant::yaml::parse(&out.stdout).unwrap())
            .unwrap();
    let results = parsed["results"].as_array().cloned().unwrap_or_default();
    let targets = per_target(&results);
    // One each for what the summary counts: created, upgraded, waiting (to be upgraded or
    // created), deleted.
    let s = summary(&results);
    let count = |what: &str| -> usize {
        let at = s.find(&format!(" {what}")).unwrap_or(0);
        let digits = s[..at]
            .rsplit(|c: char| !c.is_ascii_digit())
            .next()
            .unwrap_or("");
        digits.parse().unwrap_or(0)
    };
    let acted = [
        "created",
        "upgraded",
        "waiting (",
        "waiting to be created",
        "deleted",
    ]
    .map(count);
    assert!(acted.iter().all(|&c| c > 0), "{acted:?}: {s}");
    assert_eq!(targets.len(), acted.iter().sum::<usize>(), "{s}");
    assert!(targets.len() > n / 2);
    assert!(targets
        .iter()
        .all(|t| !t.2.contains('\n') && t.2.len() < 1_500));
    assert!(targets.iter().any(|t| t.2.contains(" upgraded, wave ")));
    assert!(targets.iter().any(|t| t.2.contains(" waits, wave ")));
}
