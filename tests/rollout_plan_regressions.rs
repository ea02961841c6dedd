//! Issue 48 items 1-8 through the binary, each exactly as the issue tells it: the rollout
//! decided as one plan. Every test states the fixed behaviour (what is created, upgraded or
//! deleted, the exit code, which field an error names), not the wording of a message; the
//! tests named `tags_*` read the machine-readable plan (`results[].tags`) the issue adds.

mod common;

use std::collections::BTreeMap;

use common::{is_variant, items_of, run_json};
use serde_json::{json, Value};

const EXT: &str = "fn.kpt.dev/v1alpha1";
const WAVE: &str = "package-variant.fn.kpt.dev/wave";
const APPROVED: &str = "package-variant.fn.kpt.dev/approved-wave";
const ALLOW: &str = "package-variant.fn.kpt.dev/allow-deletions";
const SYNC: &str = "package-variant.fn.kpt.dev/sync-policy";
const OWNER: &str = "config.porch.kpt.dev/packagevariantset";

/// Published revision `r` of blueprints/base (workspace `v<r>`), v1alpha1.
fn blueprint(r: i64) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
        "metadata": {"name": format!("blueprints.base.v{r}")},
        "spec": {"repository": "blueprints", "packageName": "base", "revision": r,
            "workspaceName": format!("v{r}"), "lifecycle": "Published"}})
}

/// Repository `site-<s>` in wave `wave` (a string label), selected by `fleet: yes`.
fn site(s: &str, wave: &str) -> Value {
    json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "Repository",
        "metadata": {"name": format!("site-{s}"),
            "labels": {"fleet": "yes", "wave": wave, "site": s}},
        "spec": {"type": "git"}})
}

/// Both blueprint revisions and the sites.
fn fleet(sites: &[(&str, &str)]) -> Vec<Value> {
    let mut items = vec![blueprint(1), blueprint(2)];
    items.extend(sites.iter().map(|(s, w)| site(s, w)));
    items
}

/// The extension set `fleet` at `revision` over the Repositories labelled `fleet: <fleet>`
/// except the sites in `excluded`, with `rollout`.
fn set(revision: i64, fleet: &str, excluded: &[&str], rollout: Value) -> Value {
    let mut selector = json!({"matchLabels": {"fleet": fleet}});
    if !excluded.is_empty() {
        selector["matchExpressions"] =
            json!([{"key": "site", "operator": "NotIn", "values": excluded}]);
    }
    json!({"apiVersion": EXT, "kind": "PackageVariantSet", "metadata": {"name": "fleet"},
        "spec": {"upstream": {"repo": "blueprints", "package": "base", "revision": revision},
            "targets": [{"repositorySelector": selector}],
            "rollout": rollout}})
}

fn annotated(mut set: Value, key: &str, value: &str) -> Value {
    set["metadata"]["annotations"][key] = json!(value);
    set
}

fn int_waves() -> Value {
    json!({"waveExpr": "int(target.labels['wave'])"})
}

fn with(mut rollout: Value, key: &str, value: Value) -> Value {
    rollout[key] = value;
    rollout
}

/// One run: exit code, output items, results.
fn run(items: &[Value], config: &Value) -> (i32, Vec<Value>, Vec<Value>) {
    let (out, parsed) = run_json(items, config);
    assert!(
        out.code == 0 || out.code == 1,
        "exit {}: {}",
        out.code,
        out.stderr
    );
    let results = parsed["results"].as_array().cloned().unwrap_or_default();
    (out.code, items_of(&parsed), results)
}

/// One run that must succeed.
fn ok(items: &[Value], config: &Value) -> (Vec<Value>, Vec<Value>) {
    let (code, out, results) = run(items, config);
    assert_eq!(code, 0, "{results:#?}");
    (out, results)
}

/// The variants by site (`a` for `fleet-site-a-base`): the revision each is on, read from
/// `revision` or, failing that, `workspaceName: v<N>`.
fn revisions(items: &[Value]) -> BTreeMap<String, i64> {
    items
        .iter()
        .filter(|v| is_variant(v))
        .map(|v| {
            let name = v["metadata"]["name"].as_str().unwrap_or("");
            let s = name
                .trim_start_matches("fleet-site-")
                .trim_end_matches("-base");
            let u = &v["spec"]["upstream"];
            let r = u["revision"].as_i64().unwrap_or_else(|| {
                u["workspaceName"]
                    .as_str()
                    .and_then(|w| w.trim_start_matches('v').parse().ok())
                    .unwrap_or(0)
            });
            (s.to_string(), r)
        })
        .collect()
}

/// The sites whose variant is on `revision`, in name order, as one string ("ab").
fn on(items: &[Value], revision: i64) -> String {
    revisions(items)
        .into_iter()
        .filter(|(_, r)| *r == revision)
        .map(|(s, _)| s)
        .collect::<Vec<_>>()
        .join(",")
}

/// What a controller writes between runs: Ready True on each variant without a status, and
/// Ready False on the sites in `failing` (whatever they had).
fn controller(items: &[Value], failing: &[&str]) -> Vec<Value> {
    items
        .iter()
        .cloned()
        .map(|mut v| {
            let name = v["metadata"]["name"].as_str().unwrap_or("").to_string();
            let fails = failing
                .iter()
                .any(|s| name == format!("fleet-site-{s}-base"));
            if is_variant(&v) && (fails || v.get("status").is_none()) {
                let status = if fails { "False" } else { "True" };
                v["status"] = json!({"conditions": [{"type": "Ready", "status": status}]});
            }
            v
        })
        .collect()
}

/// The error results as (resourceRef name, field path, message).
fn errors(results: &[Value]) -> Vec<(String, String, String)> {
    results
        .iter()
        .filter(|r| r["severity"] == "error")
        .map(|r| {
            (
                r["resourceRef"]["name"].as_str().unwrap_or("").to_string(),
                r["field"]["path"].as_str().unwrap_or("").to_string(),
                r["message"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect()
}

/// A run that must be refused and change nothing: its error results.
fn refused(items: &[Value], config: &Value) -> Vec<(String, String, String)> {
    let (code, out, results) = run(items, config);
    assert_eq!(code, 1, "not refused: {results:#?}");
    assert_eq!(out, items, "a refused run changes nothing");
    errors(&results)
}

/// The fleet created at revision 1 by `config` at revision 1, every variant Ready.
fn created(items: &[Value], config: &Value) -> Vec<Value> {
    let (out, results) = ok(items, config);
    assert!(revisions(&out).values().all(|r| *r == 1), "{results:#?}");
    controller(&out, &[])
}

// ------------------------------------------------------------------ item 1

/// Forty sites in four waves of ten.
fn forty() -> Vec<(String, String)> {
    (0..40)
        .map(|i| (format!("{i:02}"), (i / 10 + 1).to_string()))
        .collect()
}

/// Item 1: a selector typo that unselects the whole fleet is refused by the deletion guard in
/// the first run under `deletionOrder: Reverse` as under `AllAtOnce`: the guard counts every
/// deletion the plan intends, not this run's wave of them.
#[test]
fn item1_a_selector_typo_is_refused_in_the_first_run_under_reverse() {
    let sites = forty();
    let sites: Vec<(&str, &str)> = sites.iter().map(|(s, w)| (&**s, &**w)).collect();
    for order in ["AllAtOnce", "Reverse"] {
        let rollout = with(int_waves(), "deletionOrder", json!(order));
        let items = created(&fleet(&sites), &set(1, "yes", &[], rollout.clone()));
        assert_eq!(revisions(&items).len(), 40);
        let typo = set(1, "yse", &[], rollout);
        let found = refused(&items, &typo);
        assert!(!found.is_empty(), "{order}");
    }
}

/// Item 1, the other way round: an allowance that covers only one wave of the ten-variant
/// waves (25%) does not let a whole-fleet deletion through wave by wave under `Reverse`.
#[test]
fn item1_a_partial_allowance_does_not_pass_wave_by_wave() {
    let sites = forty();
    let sites: Vec<(&str, &str)> = sites.iter().map(|(s, w)| (&**s, &**w)).collect();
    let rollout = with(int_waves(), "deletionOrder", json!("Reverse"));
    let items = created(&fleet(&sites), &set(1, "yes", &[], rollout.clone()));
    let typo = annotated(set(1, "yse", &[], rollout), ALLOW, "25%");
    refused(&items, &typo);
}

// ------------------------------------------------------------------ item 2

/// Six sites: the canary a in wave 1, b and c in wave 2, d, e and f in wave 3.
const SIX: [(&str, &str); 6] = [
    ("a", "1"),
    ("b", "2"),
    ("c", "2"),
    ("d", "3"),
    ("e", "3"),
    ("f", "3"),
];

fn gated() -> Value {
    json!({"waveExpr": "int(target.labels['wave'])", "requireReady": true,
        "pauseAfterWave": true})
}

/// The canary a on revision 2 and reporting Ready False, the rest on revision 1 and Ready.
fn failed_canary(rollout: &Value) -> Vec<Value> {
    let items = created(&fleet(&SIX), &set(1, "yes", &[], rollout.clone()));
    let (out, results) = ok(&items, &set(2, "yes", &[], rollout.clone()));
    assert_eq!(on(&out, 2), "a", "{results:#?}");
    controller(&out, &["a"])
}

/// What a run did, by site: (upgraded, created, deleted), each in name order.
fn moves(before: &[Value], after: &[Value]) -> (Vec<String>, Vec<String>, Vec<String>) {
    let (b, a) = (revisions(before), revisions(after));
    let upgraded = a
        .iter()
        .filter(|(s, r)| b.get(*s).is_some_and(|old| old != *r))
        .map(|(s, _)| s.clone())
        .collect();
    let created = a.keys().filter(|s| !b.contains_key(*s)).cloned().collect();
    let deleted = b.keys().filter(|s| !a.contains_key(*s)).cloned().collect();
    (upgraded, created, deleted)
}

fn none() -> Vec<String> {
    Vec::new()
}

/// Item 2: narrowing the selector so that the failed canary is deleted does not release
/// wave 2 without an approval, neither in that run nor in the next (on that run's output,
/// the canary still failing if it is still there).
#[test]
fn item2_retiring_a_failed_canary_releases_no_wave() {
    let items = failed_canary(&gated());
    let retire = set(2, "yes", &["a"], gated());
    let (_, first, results) = run(&items, &retire);
    let (upgraded, created, _) = moves(&items, &first);
    assert_eq!((upgraded, created), (none(), none()), "{results:#?}");
    let next = controller(&first, &["a"]);
    let (_, second, results) = run(&next, &retire);
    let (upgraded, created, _) = moves(&next, &second);
    assert_eq!(
        (upgraded, created),
        (none(), none()),
        "the run after the retirement: {results:#?}"
    );
}

/// Item 2 without `pauseAfterWave`: `requireReady` alone holds wave 2 in the run that
/// retires the failed canary (a variant being deleted still blocks).
#[test]
fn item2_a_failed_canary_being_deleted_still_blocks_under_require_ready() {
    let rollout = with(int_waves(), "requireReady", json!(true));
    let items = failed_canary(&rollout);
    let (_, out, results) = run(&items, &set(2, "yes", &["a"], rollout));
    let (upgraded, created, _) = moves(&items, &out);
    assert_eq!((upgraded, created), (none(), none()), "{results:#?}");
}

/// Item 2, the deliberate act: with an allowance that covers it the canary is deleted, and
/// still nothing is upgraded in that run.
#[test]
fn item2_an_allowed_retirement_deletes_the_canary_and_upgrades_nothing() {
    let items = failed_canary(&gated());
    let retire = annotated(set(2, "yes", &["a"], gated()), ALLOW, "all");
    let (out, results) = ok(&items, &retire);
    let (upgraded, created, deleted) = moves(&items, &out);
    assert_eq!(
        (upgraded, created, deleted),
        (none(), none(), vec!["a".to_string()]),
        "{results:#?}"
    );
}

// ------------------------------------------------------------------ item 3

/// Item 3: a sync policy that forbids updates (`create-delete`, `create-only`) does not
/// switch the rollout off: a new site of wave 2 is not created at the new revision while the
/// canary on it is not Ready, as under the default policy.
#[test]
fn item3_a_sync_policy_keeps_the_creation_hold() {
    let rollout = with(int_waves(), "requireReady", json!(true));
    let mut items = failed_canary(&rollout);
    items.push(site("g", "2"));
    for policy in [None, Some("create-delete"), Some("create-only")] {
        let mut config = set(2, "yes", &[], rollout.clone());
        if let Some(p) = policy {
            config = annotated(config, SYNC, p);
        }
        let (out, results) = ok(&items, &config);
        let (upgraded, created, deleted) = moves(&items, &out);
        assert_eq!(
            (upgraded, created, deleted),
            (none(), none(), none()),
            "{policy:?}: {results:#?}"
        );
    }
}

// ------------------------------------------------------------------ item 4

/// Sites a and b in wave 1, c and d in 2, e and f in 3.
const PAIRS: [(&str, &str); 6] = [
    ("a", "1"),
    ("b", "1"),
    ("c", "2"),
    ("d", "2"),
    ("e", "3"),
    ("f", "3"),
];

/// Wave 1 (a, b) on revision 2 and Ready under `requireReady`: without anything else, the
/// next run upgrades wave 2.
fn after_wave_1() -> (Vec<Value>, Value) {
    let rollout = with(int_waves(), "requireReady", json!(true));
    let items = created(&fleet(&PAIRS), &set(1, "yes", &[], rollout.clone()));
    let config = set(2, "yes", &[], rollout);
    let (out, _) = ok(&items, &config);
    assert_eq!(on(&out, 2), "a,b");
    let items = controller(&out, &[]);
    let (next, _) = ok(&items, &config);
    assert_eq!(on(&next, 2), "a,b,c,d", "wave 2 goes when nothing blocks");
    (items, config)
}

/// A v1alpha1 downstream PackageRevision of site a.
fn downstream(workspace: &str, revision: i64, lifecycle: &str) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
        "metadata": {"name": format!("site-a.base.{workspace}")},
        "spec": {"repository": "site-a", "packageName": "base", "workspaceName": workspace,
            "revision": revision, "lifecycle": lifecycle}})
}

/// The PackageRevisionResources of that revision, with `kptfile` as its Kptfile and
/// `revision` as its `spec.revision`.
fn resources(workspace: &str, revision: Value, kptfile: &str) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevisionResources",
        "metadata": {"name": format!("site-a.base.{workspace}")},
        "spec": {"repository": "site-a", "packageName": "base", "workspaceName": workspace,
            "revision": revision,
            "resources": {"Kptfile": kptfile, "cm.yaml": "kind: ConfigMap\n"}}})
}

/// A Kptfile whose `status.conditions` is `conditions` (YAML lines at column 2).
fn kptfile(conditions: &str) -> String {
    format!(
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: base\nstatus:\n  conditions:\n{conditions}"
    )
}

const RENDERED_TRUE: &str = "  - type: Rendered\n    status: \"True\"\n    reason: RenderSuccess\n";
const RENDERED_FALSE: &str =
    "  - type: Rendered\n    status: \"False\"\n    reason: RenderFailed\n    message: boom\n";

/// Refused, nothing changed, and an error on `resource` whose field path contains `field`
/// (and whose path or message mentions `also`, when given).
fn assert_refused_naming(extra: Vec<Value>, resource: &str, field: &str, also: Option<&str>) {
    let (mut items, config) = after_wave_1();
    items.extend(extra);
    let found = refused(&items, &config);
    assert!(
        found.iter().any(|(name, path, message)| name == resource
            && path.contains(field)
            && also.is_none_or(|w| path.contains(w) || message.contains(w))),
        "want an error on {resource} at {field} ({also:?}): {found:#?}"
    );
}

/// Item 4a: a Kptfile with two `Rendered` conditions (`True` first) is refused, as the same
/// shape on a v1alpha2 PackageRevision is, not read as rendered.
#[test]
fn item4_two_rendered_conditions_in_a_kptfile_are_refused() {
    let twice = kptfile(&format!("{RENDERED_TRUE}{RENDERED_FALSE}"));
    assert_refused_naming(
        vec![
            downstream("v2", 0, "Draft"),
            resources("v2", json!(0), &twice),
        ],
        "site-a.base.v2",
        "Kptfile",
        Some("conditions"),
    );
}

/// Item 4b: a PackageRevisionResources `spec.revision: "2"` is refused, not read as 0 (which
/// ranks the failed revision 2 below the rendered revision 1 and hides it).
#[test]
fn item4_a_string_revision_of_package_revision_resources_is_refused() {
    let extra = vec![
        downstream("v1", 1, "Published"),
        resources("v1", json!(1), &kptfile(RENDERED_TRUE)),
        downstream("v2", 2, "Published"),
        resources("v2", json!("2"), &kptfile(RENDERED_FALSE)),
    ];
    assert_refused_naming(extra, "site-a.base.v2", "spec.revision", None);
}

/// Item 4c: a Kptfile whose `status.conditions` is a mapping is refused, not read as no
/// condition.
#[test]
fn item4_kptfile_conditions_as_a_mapping_are_refused() {
    let mapping = "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: base\nstatus:\n  conditions:\n    Rendered: \"False\"\n";
    assert_refused_naming(
        vec![
            downstream("v2", 0, "Draft"),
            resources("v2", json!(0), mapping),
        ],
        "site-a.base.v2",
        "Kptfile",
        Some("conditions"),
    );
}

/// Item 4d: an empty Kptfile (`""`, `~`) is refused, not read as a Kptfile that says nothing.
#[test]
fn item4_an_empty_kptfile_is_refused() {
    for empty in ["", "~", "null\n"] {
        assert_refused_naming(
            vec![
                downstream("v2", 0, "Draft"),
                resources("v2", json!(0), empty),
            ],
            "site-a.base.v2",
            "Kptfile",
            None,
        );
    }
}

/// Item 4, the reference: the same doubled condition on a v1alpha2 PackageRevision is refused
/// today; the v1alpha1 reading must agree with it.
#[test]
fn item4_the_same_shape_on_v1alpha2_is_refused() {
    let pr = json!({"apiVersion": "porch.kpt.dev/v1alpha2", "kind": "PackageRevision",
        "metadata": {"name": "site-a.base.v2"},
        "spec": {"repository": "site-a", "packageName": "base", "workspaceName": "v2",
            "lifecycle": "Draft"},
        "status": {"conditions": [{"type": "Rendered", "status": "True"},
            {"type": "Rendered", "status": "False"}]}});
    assert_refused_naming(vec![pr], "site-a.base.v2", "status.conditions", None);
}

// ------------------------------------------------------------------ item 5

/// Item 5: a wave annotation written as a YAML integer (`wave: 1`) is read as wave 1: under
/// `Reverse`, the canary it marks is deleted after wave 3, not first as a variant without
/// the annotation would be.
#[test]
fn item5_an_unquoted_wave_annotation_is_read_as_its_wave() {
    let rollout = with(int_waves(), "deletionOrder", json!("Reverse"));
    let mut items = created(&fleet(&PAIRS), &set(1, "yes", &[], rollout.clone()));
    for v in items
        .iter_mut()
        .filter(|v| v["metadata"]["name"] == "fleet-site-a-base")
    {
        assert_eq!(v["metadata"]["annotations"][WAVE], "1");
        v["metadata"]["annotations"][WAVE] = json!(1);
    }
    let keep = set(1, "yes", &["a", "e"], rollout);
    let (out, results) = ok(&items, &keep);
    let (_, _, deleted) = moves(&items, &out);
    assert_eq!(deleted, ["e"], "{results:#?}");
    let (again, results) = ok(&out, &keep);
    let (_, _, deleted) = moves(&out, &again);
    assert_eq!(deleted, ["a"], "{results:#?}");
}

// ------------------------------------------------------------------ item 6

/// Three sites of one wave; a's variant is spelled `workspaceName: v2` (on revision 2), b and
/// c are on revision 1; `maxUpgrades: 1`.
fn respelled_canary() -> (Vec<Value>, Value) {
    let rollout = with(int_waves(), "maxUpgrades", json!(1));
    let sites = [("a", "1"), ("b", "1"), ("c", "1")];
    let mut items = created(&fleet(&sites), &set(1, "yes", &[], rollout.clone()));
    for v in items
        .iter_mut()
        .filter(|v| v["metadata"]["name"] == "fleet-site-a-base")
    {
        v["spec"]["upstream"] = json!({"repo": "blueprints", "package": "base",
            "workspaceName": "v2"});
    }
    (items, set(2, "yes", &[], rollout))
}

/// Item 6: whether a variant is upgraded is decided once: a respelling (`workspaceName: v2`
/// to `revision: 2`) is no upgrade, so it does not take the run's one upgrade.
#[test]
fn item6_a_respelling_is_not_an_upgrade() {
    let (items, config) = respelled_canary();
    let (out, results) = ok(&items, &config);
    assert_eq!(revisions(&out)["a"], 2, "{results:#?}");
    let (upgraded, created, deleted) = moves(&items, &out);
    assert_eq!(
        (upgraded, created, deleted),
        (vec!["b".to_string()], none(), none()),
        "{results:#?}"
    );
}

// ------------------------------------------------------------------ item 7

/// Item 7: run A upgrades the only existing variant (the canary) and holds the two new sites
/// of later waves; run B, on A's output unchanged (the canary has no status yet: not Ready),
/// creates neither; nor does it once the canary reports Ready False.
#[test]
fn item7_new_variants_stay_held_while_the_canary_is_not_ready() {
    let rollout = with(int_waves(), "requireReady", json!(true));
    let items = created(&fleet(&[("a", "1")]), &set(1, "yes", &[], rollout.clone()));
    let mut items = items;
    items.push(site("c", "2"));
    items.push(site("e", "3"));
    let config = set(2, "yes", &[], rollout);
    let (a, results) = ok(&items, &config);
    assert_eq!(
        moves(&items, &a),
        (vec!["a".to_string()], none(), none()),
        "run A: {results:#?}"
    );
    let (b, results) = ok(&a, &config);
    assert_eq!(
        moves(&a, &b),
        (none(), none(), none()),
        "run B: {results:#?}"
    );
    let failing = controller(&a, &["a"]);
    let (c, results) = ok(&failing, &config);
    assert_eq!(
        moves(&failing, &c),
        (none(), none(), none()),
        "canary Ready False: {results:#?}"
    );
}

// ------------------------------------------------------------------ item 8

/// Item 8: waves given as digit strings ("1", "2", "10") are ordered one way for every
/// intent: the wave that is upgraded earlier of "2" and "10" is deleted later under
/// `Reverse`.
#[test]
fn item8_digit_string_waves_compare_one_way() {
    let sites = [
        ("a", "1"),
        ("b", "1"),
        ("c", "2"),
        ("d", "2"),
        ("e", "10"),
        ("f", "10"),
    ];
    let strings = json!({"waveExpr": "target.labels['wave']"});
    let items = created(&fleet(&sites), &set(1, "yes", &[], strings.clone()));
    // Upgrades: wave "1" first, then one of "2" and "10".
    let config = set(2, "yes", &[], strings.clone());
    let (first, _) = ok(&items, &config);
    assert_eq!(on(&first, 2), "a,b");
    let (second, results) = ok(&controller(&first, &[]), &config);
    let upgraded_second = match on(&second, 2).as_str() {
        "a,b,c,d" => "2",
        "a,b,e,f" => "10",
        other => panic!("wave 2 or 10 after wave 1, not {other}: {results:#?}"),
    };
    // Deletions: everything but wave "1", highest first.
    let reverse = with(strings, "deletionOrder", json!("Reverse"));
    let keep = annotated(set(1, "yes", &["c", "d", "e", "f"], reverse), ALLOW, "all");
    let (out, results) = ok(&items, &keep);
    let deleted_first = match moves(&items, &out).2.join(",").as_str() {
        "c,d" => "2",
        "e,f" => "10",
        other => panic!("one wave deleted first, not {other}: {results:#?}"),
    };
    assert_ne!(
        upgraded_second, deleted_first,
        "wave {upgraded_second} is upgraded before the other and deleted before it too"
    );
}

// ------------------------------------------------------------------ the plan as tags

/// A result's `tags` (a map of strings), empty when it has none.
fn tags(result: &Value) -> BTreeMap<String, String> {
    result["tags"]
        .as_object()
        .into_iter()
        .flatten()
        .map(|(k, v)| {
            let v = v
                .as_str()
                .unwrap_or_else(|| panic!("tag {k} is not a string: {v}"));
            (k.clone(), v.to_string())
        })
        .collect()
}

/// The per-target results (those tagged with an `action`), by the variant's name.
fn per_target(results: &[Value]) -> BTreeMap<String, Vec<BTreeMap<String, String>>> {
    let mut by_name: BTreeMap<String, Vec<BTreeMap<String, String>>> = BTreeMap::new();
    for r in results {
        let t = tags(r);
        if t.contains_key("action") {
            let name = r["resourceRef"]["name"].as_str().unwrap_or("").to_string();
            by_name.entry(name).or_default().push(t);
        }
    }
    by_name
}

/// The one per-target result of site `s`, which carries every tag the issue names.
fn target_tags(
    by_name: &BTreeMap<String, Vec<BTreeMap<String, String>>>,
    s: &str,
) -> BTreeMap<String, String> {
    let name = format!("fleet-site-{s}-base");
    let found = by_name.get(&name).cloned().unwrap_or_default();
    assert_eq!(
        found.len(),
        1,
        "{name}: one per-target result: {by_name:#?}"
    );
    let t = found[0].clone();
    for key in ["action", "wave", "gate", "from", "to"] {
        assert!(t.contains_key(key), "{name} has no tag {key}: {t:?}");
    }
    t
}

/// How many times the summary names the variant of site `s` (its groups and reasons): an
/// entry is in exactly one group.
fn named(summary: &str, s: &str) -> usize {
    summary.matches(&format!("fleet-site-{s}-base")).count()
}

/// The summary (the first result) and its `phase` tag.
fn phase(results: &[Value]) -> (String, String) {
    let first = results.first().cloned().unwrap_or(Value::Null);
    let message = first["message"].as_str().unwrap_or("").to_string();
    let phase = tags(&first).get("phase").cloned().unwrap_or_default();
    (phase, message)
}

/// The summary comes first, whatever warnings there are, and its `phase` tag tells a run
/// that moves (`Progressing`), one held by a variant that is not Ready (`Blocked`), one that
/// waits for `approved-wave` (`AwaitingApproval`) and a finished rollout (`Complete`).
#[test]
fn tags_the_summary_comes_first_with_its_phase() {
    // Progressing, with a warning first in line: a second target that selects nothing.
    let rollout = with(int_waves(), "requireReady", json!(true));
    let items = created(&fleet(&PAIRS), &set(1, "yes", &[], rollout.clone()));
    let mut config = set(2, "yes", &[], rollout.clone());
    config["spec"]["targets"]
        .as_array_mut()
        .unwrap()
        .push(json!({"repositorySelector": {"matchLabels": {"fleet": "nowhere"}}}));
    let (out, results) = ok(&items, &config);
    assert_eq!(on(&out, 2), "a,b");
    assert!(results.iter().any(|r| r["severity"] == "warning"));
    assert_eq!(phase(&results).0, "Progressing", "{results:#?}");
    // Blocked: the canary on revision 2 reports Ready False.
    let items = failed_canary(&rollout);
    let (_, results) = ok(&items, &set(2, "yes", &[], rollout.clone()));
    assert_eq!(phase(&results).0, "Blocked", "{results:#?}");
    // AwaitingApproval: the canary is Ready, wave 2 waits for approved-wave.
    let items = created(&fleet(&SIX), &set(1, "yes", &[], gated()));
    let config = set(2, "yes", &[], gated());
    let (out, _) = ok(&items, &config);
    let (held, results) = ok(&controller(&out, &[]), &config);
    assert_eq!(on(&held, 2), "a");
    assert_eq!(phase(&results).0, "AwaitingApproval", "{results:#?}");
    // Complete: every variant on revision 2 and Ready.
    let mut items = controller(&held, &[]);
    for w in ["2", "3"] {
        let approved = annotated(config.clone(), APPROVED, w);
        let (out, _) = ok(&items, &approved);
        items = controller(&out, &[]);
    }
    assert_eq!(on(&items, 2), "a,b,c,d,e,f");
    let (_, results) = ok(&items, &config);
    let (phase, message) = phase(&results);
    assert_eq!(phase, "Complete", "{results:#?}");
    assert!(message.contains("rollout complete"), "{message}");
}

/// Every per-target result carries `action`, `wave`, `gate`, `from` and `to`: the upgraded
/// canary, a variant held by `maxUpgrades`, later waves, a new site waiting for its wave and
/// a deletion. The action says what happens (`created`, `upgraded`, `waits`, `blocking`,
/// `deleted`, `deletionWaits`) and `gate` what holds it (`none` when it moves).
#[test]
fn tags_every_target_carries_action_wave_gate_from_to() {
    let rollout = with(int_waves(), "maxUpgrades", json!(1));
    let items = created(&fleet(&PAIRS), &set(1, "yes", &[], rollout.clone()));
    let mut items: Vec<Value> = items
        .into_iter()
        .filter(|v| v["metadata"]["name"] != "site-f")
        .collect();
    items.push(site("g", "3"));
    let (out, results) = ok(&items, &set(2, "yes", &[], rollout));
    // f's deletion may be held for its wave: only its intent is asserted.
    let (upgraded, created, deleted) = moves(&items, &out);
    assert_eq!(
        (upgraded, created),
        (vec!["a".to_string()], none()),
        "{results:#?}"
    );
    assert!(deleted.iter().all(|s| s == "f"), "{results:#?}");
    let by_name = per_target(&results);
    let a = target_tags(&by_name, "a");
    let a_tags = (a["action"].as_str(), a["wave"].as_str(), a["gate"].as_str());
    assert_eq!(a_tags, ("upgraded", "1", "none"));
    assert!(a["from"].contains('1') && a["to"].contains('2'), "{a:?}");
    let b = target_tags(&by_name, "b");
    assert_eq!(
        (b["action"].as_str(), b["gate"].as_str()),
        ("waits", "maxUpgrades")
    );
    for s in ["c", "d", "e"] {
        let t = target_tags(&by_name, s);
        assert_eq!(
            (t["action"].as_str(), t["gate"].as_str()),
            ("waits", "waves"),
            "{s}"
        );
    }
    let g = target_tags(&by_name, "g");
    assert_eq!(
        (g["action"].as_str(), g["gate"].as_str()),
        ("waits", "waves"),
        "{g:?}"
    );
    assert!(g["to"].contains('2'), "{g:?}");
    assert_eq!(g["wave"], "3");
    let f = target_tags(&by_name, "f");
    assert!(
        ["deleted", "deletionWaits"].contains(&f["action"].as_str()),
        "{f:?}"
    );
}

/// Item 6 in the tags: a respelling is no upgrade in any place (it gets no per-target result,
/// as an unchanged variant does, and is in one group of the summary), and exactly the
/// variants whose revision moves are tagged as free upgrades.
#[test]
fn tags_a_respelling_is_no_upgrade_in_any_place() {
    let (items, config) = respelled_canary();
    let (out, results) = ok(&items, &config);
    let by_name = per_target(&results);
    assert!(!by_name.contains_key("fleet-site-a-base"), "{by_name:#?}");
    assert_eq!(named(&phase(&results).1, "a"), 1, "{results:#?}");
    // A free entry's gate is empty (or "none"): nothing holds it.
    let free =
        |t: &BTreeMap<String, String>| t.get("gate").is_none_or(|g| g.is_empty() || g == "none");
    let free_upgrades: Vec<String> = by_name
        .iter()
        .filter(|(_, ts)| {
            ts.iter()
                .any(|t| t.get("action").is_some_and(|a| a == "upgraded") && free(t))
        })
        .map(|(n, _)| n.clone())
        .collect();
    let (upgraded, _, _) = moves(&items, &out);
    let upgraded: Vec<String> = upgraded
        .iter()
        .map(|s| format!("fleet-site-{s}-base"))
        .collect();
    assert_eq!(free_upgrades, upgraded, "{results:#?}");
}

/// Item 6's reasons: a variant pinned below the fleet's revision (`Manual`, its activation
/// removed part-way, the fleet spelled `workspaceName`) is held by the activation, not by a
/// `maxUpgrades` nobody set; each held variant has one per-target result, the one already on
/// the revision none (it is unchanged), and every variant is in one group of the summary.
#[test]
fn tags_a_pinned_variant_is_held_by_activation_and_in_the_summary() {
    let mut items = vec![blueprint(1), blueprint(2)];
    items[1]["metadata"]["labels"] = json!({"package-variant.fn.kpt.dev/tag-stable": "true"});
    for (s, w, on) in [("a", "1", "v2"), ("b", "1", "v1"), ("c", "2", "v1")] {
        items.push(site(s, w));
        items.push(json!({"apiVersion": "config.porch.kpt.dev/v1alpha1",
            "kind": "PackageVariant",
            "metadata": {"name": format!("fleet-site-{s}-base"), "namespace": "default",
                "labels": {OWNER: "fleet"},
                "annotations": {WAVE: w, "package-variant.fn.kpt.dev/upstream-tag": "stable"}},
            "spec": {"upstream": {"repo": "blueprints", "package": "base", "workspaceName": on},
                "downstream": {"repo": format!("site-{s}"), "package": "base"}},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}));
    }
    let config = json!({"apiVersion": EXT, "kind": "PackageVariantSet",
        "metadata": {"name": "fleet"},
        "spec": {"upstream": {"repo": "blueprints", "package": "base", "tag": "stable"},
            "revisionActivationPolicy": "Manual",
            "targets": [{"repositorySelector": {"matchLabels": {"fleet": "yes"}}}],
            "rollout": int_waves()}});
    let (_, results) = ok(&items, &config);
    let by_name = per_target(&results);
    let (_, summary) = phase(&results);
    assert!(!by_name.contains_key("fleet-site-a-base"), "{by_name:#?}");
    for s in ["b", "c"] {
        let t = target_tags(&by_name, s);
        let tags = (t["action"].as_str(), t["gate"].as_str());
        assert_eq!(
            tags,
            ("waits", "activation"),
            "{s}: no maxUpgrades is set: {t:?}"
        );
    }
    for s in ["a", "b", "c"] {
        assert_eq!(
            named(&summary, s),
            1,
            "{s}: in one group of the summary: {summary}"
        );
    }
}

/// Item 6's reasons: under `Reverse` and `pauseAfterWave` without an approval, the highest
/// deletion wave is held by the approval, and its gate says so.
#[test]
fn tags_a_deletion_held_for_approval_names_the_approval() {
    let rollout = json!({"waveExpr": "int(target.labels['wave'])", "deletionOrder": "Reverse",
        "pauseAfterWave": true});
    let items = created(&fleet(&PAIRS), &set(1, "yes", &[], rollout.clone()));
    let keep = set(1, "yes", &["c", "d", "e", "f"], rollout);
    let keep = annotated(keep, ALLOW, "all");
    let (out, results) = ok(&items, &keep);
    assert_eq!(out, items, "{results:#?}");
    let by_name = per_target(&results);
    for s in ["e", "f"] {
        let t = target_tags(&by_name, s);
        let gate = t["gate"].to_lowercase();
        assert!(
            t["action"] == "deletionWaits" && gate == "approval",
            "{s}: {t:?}"
        );
    }
    for s in ["c", "d"] {
        let t = target_tags(&by_name, s);
        assert!(
            t["action"] == "deletionWaits" && t["gate"] == "deletionOrder",
            "{s}: {t:?}"
        );
    }
}
