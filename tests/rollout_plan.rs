//! Issue 48 through the binary: the rollout decided as one plan, each gate over every entry
//! it concerns. Each test is one of the numbered holes, run as an operator would run
//! it (the output of one run, reconciled or not, is the next run's input).

mod common;

use common::{error_fields, is_variant, items_of, reconciled, run_json};
use serde_json::{json, Value};

const EXT: &str = "fn.kpt.dev/v1alpha1";
const WAVE: &str = "package-variant.fn.kpt.dev/wave";
const ALLOW: &str = "package-variant.fn.kpt.dev/allow-deletions";
const POLICY: &str = "package-variant.fn.kpt.dev/sync-policy";

fn blueprint(revision: i64) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
        "metadata": {"name": format!("blueprints.base.v{revision}")},
        "spec": {"repository": "blueprints", "packageName": "base", "revision": revision,
            "workspaceName": format!("v{revision}"), "lifecycle": "Published"}})
}

/// Repository `site-s` labelled `wave: w` and `in: set`.
fn site(s: &str, w: &str) -> Value {
    json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "Repository",
        "metadata": {"name": format!("site-{s}"), "labels": {"wave": w, "in": "set"}},
        "spec": {"type": "git"}})
}

/// The blueprints and the sites `(name, wave)`.
fn fleet(sites: &[(&str, &str)]) -> Vec<Value> {
    let mut items = vec![blueprint(1), blueprint(2)];
    items.extend(sites.iter().map(|(s, w)| site(s, w)));
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

fn annotated(mut config: Value, key: &str, value: &str) -> Value {
    config["metadata"]["annotations"][key] = json!(value);
    config
}

fn ok(items: &[Value], config: &Value) -> (Vec<Value>, Vec<Value>) {
    let (out, parsed) = run_json(items, config);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let results = parsed["results"].as_array().cloned().unwrap_or_default();
    (items_of(&parsed), results)
}

fn refused(items: &[Value], config: &Value) -> Vec<(String, String)> {
    let (out, parsed) = run_json(items, config);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert_eq!(items_of(&parsed), items, "a refused run changes nothing");
    error_fields(&parsed)
}

fn variant<'a>(items: &'a [Value], s: &str) -> Option<&'a Value> {
    let name = format!("fleet-site-{s}-base");
    items
        .iter()
        .find(|v| is_variant(v) && v["metadata"]["name"] == name.as_str())
}

/// The sites (of `all`) whose variant is on `revision`, in order.
fn on(items: &[Value], all: &[(&str, &str)], revision: i64) -> String {
    all.iter()
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
        .find(|m| m.starts_with("PackageVariantSet \"fleet\""))
        .unwrap_or("")
        .to_string()
}

fn messages(results: &[Value]) -> String {
    results
        .iter()
        .filter_map(|r| r["message"].as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

fn int_waves() -> Value {
    json!({"waveExpr": "int(target.labels['wave'])"})
}

fn with(mut rollout: Value, key: &str, value: Value) -> Value {
    rollout[key] = value;
    rollout
}

/// `sites` created at revision 1 under `rollout` and reconciled (every variant Ready).
fn at_1(sites: &[(&str, &str)], rollout: &Value) -> Vec<Value> {
    let waves: Vec<&str> = sites.iter().map(|(_, w)| *w).collect();
    let (items, results) = ok(&fleet(sites), &set(1, &waves, rollout.clone()));
    assert_eq!(
        on(&items, sites, 1).len(),
        sites.len(),
        "{}",
        messages(&results)
    );
    reconciled(&items)
}

const CANARY_AND_TWO: [(&str, &str); 3] = [("a", "1"), ("b", "2"), ("c", "2")];

#[test]
fn retiring_a_failed_canary_is_refused_unless_allowed_and_releases_nothing() {
    // Item 2: the canary is on revision 2 and not Ready; the selector is narrowed so that it
    // is deleted. Wave 2 must not move, neither in that run nor in the next one by itself.
    let rollout = json!({"waveExpr": "int(target.labels['wave'])", "requireReady": true,
        "pauseAfterWave": true});
    let items = at_1(&CANARY_AND_TWO, &rollout);
    let (canary_on_2, results) = ok(&items, &set(2, &["1", "2"], rollout.clone()));
    assert_eq!(
        on(&canary_on_2, &CANARY_AND_TWO, 2),
        "a",
        "{}",
        summary(&results)
    );
    // Not reconciled: the canary has no Ready condition.
    let narrowed = set(2, &["2"], rollout.clone());
    let found = refused(&canary_on_2, &narrowed);
    assert!(
        found[0].0.starts_with("refused: this run would delete 1 PackageVariant on the new upstream that is not ready (fleet-site-a-base: ")
            && found[0].0.contains("while 2 upgrades of the rollout are pending")
            && found[0].1 == format!("metadata.annotations[{ALLOW}]"),
        "{found:?}"
    );
    // Allowed on purpose: the canary goes, and wave 2 still waits in this run (the canary,
    // being deleted, still blocks, and its wave is still the first).
    let (out, results) = ok(&canary_on_2, &annotated(narrowed, ALLOW, "all"));
    assert!(variant(&out, "a").is_none(), "{}", summary(&results));
    assert_eq!(on(&out, &CANARY_AND_TWO, 1), "bc", "{}", summary(&results));
    let s = summary(&results);
    assert!(
        s.contains("1 blocking (fleet-site-a-base (being deleted))"),
        "{s}"
    );
}

#[test]
fn a_canary_on_the_new_upstream_that_is_being_deleted_makes_the_next_wave_wait_for_approval() {
    // Item 2 with the canary Ready: its wave is still the first; wave 2 needs its approval.
    let rollout = json!({"waveExpr": "int(target.labels['wave'])", "pauseAfterWave": true});
    let items = at_1(&CANARY_AND_TWO, &rollout);
    let (out, _) = ok(&items, &set(2, &["1", "2"], rollout.clone()));
    let items = reconciled(&out);
    let (out, results) = ok(&items, &set(2, &["2"], rollout.clone()));
    assert!(variant(&out, "a").is_none());
    assert_eq!(on(&out, &CANARY_AND_TWO, 1), "bc", "{}", summary(&results));
    assert!(
        summary(&results).contains("wave 2 waits for approval"),
        "{}",
        summary(&results)
    );
}

#[test]
fn a_sync_policy_does_not_switch_the_readiness_gate_off() {
    // Item 3: the canary is on revision 2 and not Ready; under create-delete or create-only a
    // new variant is not created at revision 2 past it.
    let rollout = with(int_waves(), "requireReady", json!(true));
    let sites = [("a", "1"), ("b", "2")];
    let items = at_1(&sites, &rollout);
    let (mut out, _) = ok(&items, &set(2, &["1", "2"], rollout.clone()));
    assert_eq!(on(&out, &sites, 2), "a");
    out.push(site("c", "2"));
    for policy in ["create-delete", "create-only"] {
        let config = annotated(set(2, &["1", "2"], rollout.clone()), POLICY, policy);
        let (after, results) = ok(&out, &config);
        assert!(
            variant(&after, "c").is_none(),
            "{policy}: {}",
            messages(&results)
        );
        assert!(
            summary(&results).contains("1 waiting to be created (fleet-site-c-base)"),
            "{policy}: {}",
            summary(&results)
        );
        // Ready, it is created.
        let (after, _) = ok(&reconciled(&out), &config);
        assert!(variant(&after, "c").is_some(), "{policy}");
    }
}

#[test]
fn new_variants_wait_while_a_variant_on_the_new_upstream_is_not_ready() {
    // Item 7: run A upgrades the only existing variant and holds the new ones; run B, on A's
    // output with nothing changed, must not create them while the canary is not Ready.
    let rollout = with(int_waves(), "requireReady", json!(true));
    let sites = [("a", "1"), ("b", "2"), ("c", "3")];
    let items = at_1(&sites[..1], &rollout);
    let mut items: Vec<Value> = items;
    items.extend([site("b", "2"), site("c", "3")]);
    let config = set(2, &["1", "2", "3"], rollout.clone());
    let (a, results) = ok(&items, &config);
    assert_eq!(on(&a, &sites, 2), "a", "{}", summary(&results));
    assert!(summary(&results).contains("2 waiting to be created"));
    let (b, results) = ok(&a, &config);
    assert_eq!(b, a, "run B: {}", summary(&results));
    let s = summary(&results);
    assert!(
        s.contains("2 waiting to be created (fleet-site-b-base, fleet-site-c-base)")
            && s.contains("1 blocking (fleet-site-a-base)"),
        "{s}"
    );
    // Their own results say which gate holds them.
    assert!(
        messages(&results).contains("PackageVariant \"fleet-site-b-base\" waits, wave \"2\", upstream \"blueprints\"/\"base\" revision 2: \"requireReady: a variant on the new upstream is blocking\""),
        "{}",
        messages(&results)
    );
    // Ready: nothing is left to upgrade, so the new ones are created (no creationOrder).
    let (c, _) = ok(&reconciled(&b), &config);
    assert_eq!(on(&c, &sites, 2), "abc");
}

#[test]
fn digit_string_waves_go_in_one_order_for_upgrades_and_deletions() {
    // Item 8: string waves "1", "2", "10": 2 before 10 when upgrading and 10 before 2 when
    // deleting in reverse.
    let rollout = json!({"waveExpr": "target.labels['wave']", "deletionOrder": "Reverse"});
    let sites = [("a", "1"), ("b", "2"), ("c", "10")];
    let items = at_1(&sites, &rollout);
    let all = ["1", "2", "10"];
    let (run1, _) = ok(&items, &set(2, &all, rollout.clone()));
    assert_eq!(on(&run1, &sites, 2), "a");
    let (run2, results) = ok(&reconciled(&run1), &set(2, &all, rollout.clone()));
    assert_eq!(on(&run2, &sites, 2), "ab", "{}", summary(&results));
    // Keep wave 1 only: wave 10 goes first.
    let keep = set(1, &["1"], rollout.clone());
    let (out, results) = ok(&items, &keep);
    assert!(variant(&out, "c").is_none(), "{}", summary(&results));
    assert!(variant(&out, "b").is_some(), "{}", summary(&results));
    assert!(
        summary(&results).contains("deletions in reverse waves: wave 10 (2 waves to delete"),
        "{}",
        summary(&results)
    );
}

#[test]
fn an_unquoted_wave_annotation_is_its_wave() {
    // Item 5: `wave: 1` written by hand is wave 1, not "no annotation" (the highest).
    let rollout = with(int_waves(), "deletionOrder", json!("Reverse"));
    let sites = [("a", "1"), ("b", "2"), ("c", "3")];
    let mut items = at_1(&sites, &rollout);
    for v in items.iter_mut().filter(|v| is_variant(v)) {
        let w: i64 = v["metadata"]["annotations"][WAVE]
            .as_str()
            .unwrap()
            .parse()
            .unwrap();
        v["metadata"]["annotations"][WAVE] = json!(w);
    }
    let keep = set(1, &["9"], rollout.clone());
    let (out, results) = ok(&items, &annotated(keep.clone(), ALLOW, "all"));
    let s = summary(&results);
    assert!(
        variant(&out, "a").is_some() && variant(&out, "c").is_none(),
        "{s}"
    );
    assert!(!s.contains("without the"), "{s}");
    // Any other shape is refused on its field, naming the variant.
    let mut bad = items.clone();
    if let Some(v) = bad.iter_mut().find(|v| is_variant(v)) {
        v["metadata"]["annotations"][WAVE] = json!(1.5);
    }
    let found = refused(&bad, &annotated(keep, ALLOW, "all"));
    assert_eq!(
        found[0].1,
        format!("metadata.annotations[{WAVE}]"),
        "{found:?}"
    );
    assert!(
        found[0].0.starts_with("PackageVariant \"fleet-site-a-base\": the package-variant.fn.kpt.dev/wave annotation is 1.5, not a whole number"),
        "{found:?}"
    );
}

#[test]
fn a_respelled_revision_is_no_upgrade() {
    // Item 6: `workspaceName: v2` and `revision: 2` name one revision: the summary and the
    // variant's own result agree that nothing is upgraded.
    let rollout = with(int_waves(), "requireReady", json!(true));
    let sites = [("a", "1"), ("b", "2")];
    let items = at_1(&sites, &rollout);
    let (out, _) = ok(&items, &set(2, &["1", "2"], rollout.clone()));
    let (out, _) = ok(&reconciled(&out), &set(2, &["1", "2"], rollout.clone()));
    assert_eq!(on(&out, &sites, 2), "ab");
    let mut items = reconciled(&out);
    for v in items.iter_mut().filter(|v| is_variant(v)) {
        let u = v["spec"]["upstream"].as_object_mut().unwrap();
        u.remove("revision");
        u.insert("workspaceName".into(), json!("v2"));
    }
    let (out, results) = ok(&items, &set(2, &["1", "2"], rollout.clone()));
    assert_eq!(on(&out, &sites, 2), "ab");
    let all = messages(&results);
    assert!(!all.contains(" upgraded, wave"), "{all}");
    assert!(!all.contains("rollout of the new upstream"), "{all}");
    assert!(
        summary(&results).contains(
            "2 updated (fleet-site-a-base [spec.upstream.revision, spec.upstream.workspaceName]"
        ),
        "{}",
        summary(&results)
    );
    // The respelled variants keep their status: they did not move.
    assert!(out
        .iter()
        .filter(|v| is_variant(v))
        .all(|v| v.get("status").is_some()));
}

/// The summary's `phase` tag (the summary is the first result).
fn phase(results: &[Value]) -> String {
    assert!(
        results[0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with("PackageVariantSet \"fleet\"")),
        "the summary comes first: {results:?}"
    );
    results[0]["tags"]["phase"]
        .as_str()
        .unwrap_or("")
        .to_string()
}

#[test]
fn the_plan_is_readable_by_machines() {
    // Item 6 (the report): the summary first, whatever warnings there are, with its phase;
    // each target's result with action, wave, gate, from and to.
    let rollout = json!({"waveExpr": "int(target.labels['wave'])", "requireReady": true,
        "pauseAfterWave": true, "deletionOrder": "Reverse"});
    let sites = [("a", "1"), ("b", "2"), ("c", "3")];
    let items = at_1(&sites, &rollout);
    let config = set(2, &["1", "2", "3"], rollout.clone());
    let (out, results) = ok(&items, &config);
    assert_eq!(phase(&results), "Progressing");
    let upgraded = results
        .iter()
        .find(|r| r["resourceRef"]["name"] == "fleet-site-a-base")
        .unwrap();
    assert_eq!(
        upgraded["tags"],
        json!({"action": "upgraded", "wave": "1", "gate": "none",
            "from": "blueprints/base revision 1", "to": "blueprints/base revision 2"})
    );
    let waiting = results
        .iter()
        .find(|r| r["resourceRef"]["name"] == "fleet-site-c-base")
        .unwrap();
    assert_eq!(waiting["tags"]["action"], "waits");
    assert_eq!(waiting["tags"]["gate"], "waves");
    // Not Ready: blocked; the canary's own result names the readiness gate.
    let (_, results) = ok(&out, &config);
    assert_eq!(phase(&results), "Blocked");
    let blocking = results
        .iter()
        .find(|r| r["resourceRef"]["name"] == "fleet-site-a-base")
        .unwrap();
    assert_eq!(blocking["severity"], "warning");
    assert_eq!(blocking["tags"]["gate"], "readiness");
    assert_eq!(blocking["tags"]["action"], "blocking");
    // Ready: wave 2 waits for its approval.
    let items = reconciled(&out);
    let (_, results) = ok(&items, &config);
    assert_eq!(phase(&results), "AwaitingApproval");
    let held = results
        .iter()
        .find(|r| r["resourceRef"]["name"] == "fleet-site-b-base")
        .unwrap();
    assert_eq!(held["tags"]["gate"], "approval");
    // Approved to the end: wave by wave to Complete.
    let approved = annotated(config, "package-variant.fn.kpt.dev/approved-wave", "3");
    let (out, _) = ok(&items, &approved);
    let (out, _) = ok(&reconciled(&out), &approved);
    let (out, results) = ok(&reconciled(&out), &approved);
    assert_eq!(phase(&results), "Complete", "{}", summary(&results));
    assert!(summary(&results).contains("; rollout complete: all 3 on revision 2"));
    // A deletion wave: its warning comes after the summary, and its result names its gate.
    let keep = annotated(set(2, &["1"], rollout), ALLOW, "all");
    let (_, results) = ok(&out, &keep);
    assert_eq!(
        phase(&results),
        "AwaitingApproval",
        "{}",
        messages(&results)
    );
    assert!(results.iter().any(|r| r["tags"]["action"] == "deletionWaits"
        && r["tags"]["gate"] == "approval"
        && r["message"]
            .as_str()
            .is_some_and(|m| m.ends_with("\"deletion wave 3 waits for approval (package-variant.fn.kpt.dev/approved-wave: \\\"3\\\")\""))));
}

const APPROVED: &str = "package-variant.fn.kpt.dev/approved-wave";

#[test]
fn an_approval_left_from_an_earlier_rollout_approves_nothing_of_the_next() {
    let rollout = json!({"waveExpr": "int(target.labels['wave'])", "pauseAfterWave": true});
    let sites = [("a", "1"), ("b", "2"), ("c", "3")];
    let items = at_1(&sites, &rollout);
    let all = ["1", "2", "3"];
    // A bare "3" while the first wave of the rollout to revision 2 is still moving: stale.
    let stale = annotated(set(2, &all, rollout.clone()), APPROVED, "3");
    let found = refused(&items, &stale);
    assert_eq!(found[0].1, format!("metadata.annotations[{APPROVED}]"));
    assert!(
        found[0]
            .0
            .contains("this rollout's first wave (1) is still moving")
            && found[0].0.ends_with(&format!("{APPROVED}: \"3@2\"")),
        "{found:?}"
    );
    // Keyed to another rollout (revision 1's): it approves nothing; wave 2 waits.
    let old = annotated(set(2, &all, rollout.clone()), APPROVED, "3@1");
    let (out, results) = ok(&items, &old);
    assert_eq!(on(&out, &sites, 2), "a");
    let (out, results2) = ok(&reconciled(&out), &old);
    assert_eq!(on(&out, &sites, 2), "a", "{}", summary(&results2));
    assert_eq!(phase(&results2), "AwaitingApproval");
    assert!(
        results[0]["tags"]["approval"]
            .as_str()
            .is_some_and(|a| a.starts_with("nothing: it approves the rollout to revision 1")),
        "{:?}",
        results[0]["tags"]
    );
    // Keyed to this rollout: its waves go one after the other, unpaused.
    let ahead = annotated(set(2, &all, rollout.clone()), APPROVED, "3@2");
    let (out, _) = ok(&reconciled(&out), &ahead);
    assert_eq!(on(&out, &sites, 2), "ab");
    let (out, results) = ok(&reconciled(&out), &ahead);
    assert_eq!(on(&out, &sites, 2), "abc");
    assert!(
        results[0]["tags"]["approval"]
            .as_str()
            .is_some_and(|a| a
                .starts_with("upgrade and creation waves up to 3 of the rollout to revision 2")),
        "{:?}",
        results[0]["tags"]
    );
}

#[test]
fn approving_an_upgrade_wave_does_not_approve_a_deletion_wave() {
    let rollout = json!({"waveExpr": "int(target.labels['wave'])", "pauseAfterWave": true,
        "deletionOrder": "Reverse"});
    let sites = [("a", "1"), ("b", "2"), ("c", "3"), ("d", "3")];
    let items = at_1(&sites, &rollout);
    let all = ["1", "2", "3"];
    let (out, _) = ok(&items, &set(2, &all, rollout.clone()));
    assert_eq!(on(&out, &sites, 2), "a");
    // Site d is gone (its variant is no longer wanted); wave 2 is approved.
    let items: Vec<Value> = reconciled(&out)
        .into_iter()
        .filter(|v| v["metadata"]["name"] != "site-d")
        .collect();
    let approved = annotated(set(2, &all, rollout.clone()), APPROVED, "2");
    let (out, results) = ok(&items, &approved);
    assert_eq!(on(&out, &sites, 2), "ab", "{}", summary(&results));
    assert!(variant(&out, "d").is_some(), "{}", summary(&results));
    assert!(
        summary(&results).contains("deletion waves wait for the upgrade to finish"),
        "{}",
        summary(&results)
    );
}

#[test]
fn a_first_rollout_creates_in_waves_on_request() {
    let rollout = json!({"waveExpr": "int(target.labels['wave'])", "requireReady": true,
        "pauseAfterWave": true, "creationOrder": "Waves"});
    let sites = [("a", "1"), ("b", "2"), ("c", "2")];
    let config = set(1, &["1", "2"], rollout.clone());
    let (out, results) = ok(&fleet(&sites), &config);
    assert_eq!(on(&out, &sites, 1), "a", "{}", summary(&results));
    assert!(summary(&results).contains("2 waiting to be created"));
    // Not Ready: nothing more.
    let (again, results) = ok(&out, &config);
    assert_eq!(again, out);
    assert_eq!(phase(&results), "Blocked");
    // Ready: wave 2 waits for its approval, then goes.
    let (again, results) = ok(&reconciled(&out), &config);
    assert_eq!(on(&again, &sites, 1), "a");
    assert_eq!(phase(&results), "AwaitingApproval");
    let (done, _) = ok(&reconciled(&out), &annotated(config, APPROVED, "2"));
    assert_eq!(on(&done, &sites, 1), "abc");
    // Without the opt-in, a first rollout creates every target at once, as before.
    let (all, _) = ok(
        &fleet(&sites),
        &set(
            1,
            &["1", "2"],
            with(rollout, "creationOrder", json!("AllAtOnce")),
        ),
    );
    assert_eq!(on(&all, &sites, 1), "abc");
    // A bad value, or Waves without waveExpr, is refused with the fix.
    let found = refused(
        &fleet(&sites),
        &set(1, &["1"], json!({"creationOrder": "Waves"})),
    );
    assert_eq!(found[0].1, "spec.rollout.creationOrder");
    let found = refused(
        &fleet(&sites),
        &set(
            1,
            &["1"],
            with(int_waves(), "creationOrder", json!("waves")),
        ),
    );
    assert!(
        found[0].0.starts_with("is \"waves\": write Waves"),
        "{found:?}"
    );
}

#[test]
fn under_pause_after_wave_a_deletion_in_an_unapproved_wave_waits_with_its_wave() {
    // Wave 1 upgrading, and a typo in site b's label unselects it (wave 2, not approved):
    // under deletionOrder AllAtOnce it was deleted in that same run. Nothing of any kind
    // changes in an unapproved wave: its deletion waits for the approval of wave 2.
    let rollout = json!({"waveExpr": "int(target.labels['wave'])", "pauseAfterWave": true});
    let items = at_1(&CANARY_AND_TWO, &rollout);
    let mut typo = items.clone();
    for r in typo
        .iter_mut()
        .filter(|r| r["metadata"]["name"] == "site-b")
    {
        r["metadata"]["labels"]["wave"] = json!("22");
    }
    let config = set(2, &["1", "2"], rollout.clone());
    let (out, results) = ok(&typo, &config);
    assert_eq!(
        variant(&out, "b"),
        variant(&typo, "b"),
        "{}",
        summary(&results)
    );
    assert_eq!(on(&out, &CANARY_AND_TWO, 2), "a", "{}", summary(&results));
    let held: Vec<&Value> = (results.iter())
        .filter(|r| r["resourceRef"]["name"] == "fleet-site-b-base" && r["tags"].is_object())
        .collect();
    assert_eq!(held.len(), 1, "{results:#?}");
    assert_eq!(held[0]["tags"]["action"], "deletionWaits");
    assert_eq!(held[0]["tags"]["gate"], "approval");
    assert!(
        held[0]["message"]
            .as_str()
            .is_some_and(|m| m.contains("the deletion in wave 2 waits for approval with its wave")),
        "{}",
        held[0]["message"]
    );
    let s = summary(&results);
    assert_eq!(s.matches("fleet-site-b-base").count(), 1, "{s}");
    assert!(
        s.contains("deletions while the rollout is under way: 1 waiting (fleet-site-b-base)"),
        "{s}"
    );
    // The deletion guard still counts it: 1 of 3 is more than an allowance of 20%.
    let found = refused(&typo, &annotated(config.clone(), ALLOW, "20%"));
    assert!(
        found[0]
            .0
            .starts_with("refused: this run would delete 1 of the 3"),
        "{found:?}"
    );
    // Once wave 2 is approved, it goes with its wave.
    let approved = annotated(config, APPROVED, "2@2");
    let (out, results) = ok(&reconciled(&out), &approved);
    assert!(variant(&out, "b").is_none(), "{}", summary(&results));
    assert_eq!(on(&out, &CANARY_AND_TWO, 2), "ac", "{}", summary(&results));
}

#[test]
fn under_pause_after_wave_retiring_the_canary_on_the_old_upstream_keeps_its_wave_first() {
    // The canary (wave 1) is unselected as the rollout to revision 2 starts: while it is
    // among the items its wave is the fleet's first, and wave 2 waits for its approval.
    let rollout = json!({"waveExpr": "int(target.labels['wave'])", "pauseAfterWave": true});
    let items = at_1(&CANARY_AND_TWO, &rollout);
    let (out, results) = ok(&items, &set(2, &["2"], rollout));
    assert!(variant(&out, "a").is_none(), "{}", summary(&results));
    assert_eq!(on(&out, &CANARY_AND_TWO, 1), "bc", "{}", summary(&results));
    assert!(
        summary(&results).contains("wave 2 waits for approval"),
        "{}",
        summary(&results)
    );
}

#[test]
fn what_the_sync_policy_holds_has_its_per_target_result() {
    // An upgrade under create-delete and a deletion under create-update are held by the sync
    // policy: each has one per-target result naming it (gate syncPolicy), and stays.
    let rollout = int_waves();
    let items = at_1(&CANARY_AND_TWO, &rollout);
    let tags_of = |results: &[Value], s: &str| -> Vec<(String, String)> {
        (results.iter())
            .filter(|r| r["resourceRef"]["name"] == format!("fleet-site-{s}-base").as_str())
            .filter(|r| r["tags"]["action"].is_string())
            .map(|r| {
                let t = &r["tags"];
                (
                    t["action"].as_str().unwrap_or("").into(),
                    t["gate"].as_str().unwrap_or("").into(),
                )
            })
            .collect()
    };
    let config = annotated(
        set(2, &["1", "2"], rollout.clone()),
        POLICY,
        "create-delete",
    );
    let (out, results) = ok(&items, &config);
    assert_eq!(on(&out, &CANARY_AND_TWO, 1), "abc", "{}", summary(&results));
    for s in ["a", "b", "c"] {
        let held = vec![("waits".to_string(), "syncPolicy".to_string())];
        assert_eq!(tags_of(&results, s), held, "{s}: {results:#?}");
    }
    let config = annotated(set(1, &["1"], rollout), POLICY, "create-update");
    let (out, results) = ok(&items, &annotated(config, ALLOW, "all"));
    assert!(variant(&out, "b").is_some(), "{}", summary(&results));
    for s in ["b", "c"] {
        let held = vec![("deletionWaits".to_string(), "syncPolicy".to_string())];
        assert_eq!(tags_of(&results, s), held, "{s}: {results:#?}");
    }
    assert!(tags_of(&results, "a").is_empty(), "{results:#?}");
}
