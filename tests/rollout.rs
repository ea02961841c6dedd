//! `spec.rollout` of the `fn.kpt.dev/v1alpha1` PackageVariantSet through the binary: a fleet
//! whose upstream moves from revision 1 to 2 is upgraded wave by wave, run after run (each
//! run's output, with the Ready status a controller would write, is the next run's input),
//! and then stops changing; `requireReady`, `maxUpgrades` as a number and a share, new targets,
//! held-back variants, and every error of the rollout with its message.

mod common;
mod openapi;
#[path = "../benches/support/workloads.rs"]
mod workloads;

use std::collections::BTreeMap;

use common::{error_fields, example_step, is_variant, items_of, run, run_json};
use package_variant::yaml;
use serde_json::{json, Value};

const EXT: &str = "fn.kpt.dev/v1alpha1";

fn package_revision(revision: i64) -> Value {
    json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
        "metadata": {"name": format!("blueprints.base.v{revision}")},
        "spec": {"repository": "blueprints", "packageName": "base", "revision": revision,
            "lifecycle": "Published"}})
}

fn repository(name: &str, wave: Option<&str>) -> Value {
    let mut r = json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "Repository",
        "metadata": {"name": name, "labels": {"fleet": "yes"}}, "spec": {"type": "git"}});
    if let Some(w) = wave {
        r["metadata"]["labels"]["wave"] = json!(w);
    }
    r
}

/// The wave of site `i` of the 20-site fleet: 4 sites in wave 1, 6 in wave 2, 10 in wave 3.
fn wave_of(i: usize) -> &'static str {
    match i {
        0..=3 => "1",
        4..=9 => "2",
        _ => "3",
    }
}

/// Both upstream revisions and the 20 sites.
fn fleet() -> Vec<Value> {
    let mut items = vec![package_revision(1), package_revision(2)];
    items.extend((0..20).map(|i| repository(&format!("site-{i:02}"), Some(wave_of(i)))));
    items
}

/// The extension set over every `fleet: yes` Repository at `revision`, with `rollout`.
fn set(revision: i64, rollout: Value) -> Value {
    let mut s = json!({"apiVersion": EXT, "kind": "PackageVariantSet",
        "metadata": {"name": "fleet"},
        "spec": {"upstream": {"repo": "blueprints", "package": "base", "revision": revision},
            "targets": [{"repositorySelector": {"matchLabels": {"fleet": "yes"}},
                "template": {"labels": {"generation": "a"}}}]}});
    if !rollout.is_null() {
        s["spec"]["rollout"] = rollout;
    }
    s
}

/// The variants' upstream revisions, by name.
fn revisions(items: &[Value]) -> BTreeMap<String, i64> {
    items
        .iter()
        .filter(|v| is_variant(v))
        .map(|v| {
            (
                v["metadata"]["name"].as_str().unwrap_or("").to_string(),
                v["spec"]["upstream"]["revision"].as_i64().unwrap_or(0),
            )
        })
        .collect()
}

/// The names of the sites whose variant is at `revision`.
fn at(items: &[Value], revision: i64) -> Vec<String> {
    revisions(items)
        .into_iter()
        .filter(|(_, r)| *r == revision)
        .map(|(n, _)| {
            n.trim_start_matches("fleet-")
                .trim_end_matches("-base")
                .to_string()
        })
        .collect()
}

fn sites(range: std::ops::Range<usize>) -> Vec<String> {
    range.map(|i| format!("site-{i:02}")).collect()
}

/// The summary result's message.
fn summary(out: &Value) -> String {
    out["results"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|r| r["severity"] == "info")
        .filter_map(|r| r["message"].as_str())
        .find(|m| m.starts_with("PackageVariantSet"))
        .unwrap_or("")
        .to_string()
}

/// What a controller does between two runs: every variant without a status reports Ready
/// True (the ones the rollout upgraded are written without one), except those in `not_ready`,
/// which report Ready False.
fn controller(items: &[Value], not_ready: &[&str]) -> Vec<Value> {
    items
        .iter()
        .cloned()
        .map(|mut v| {
            let name = v["metadata"]["name"].as_str().unwrap_or("").to_string();
            let failing = not_ready.iter().any(|n| name.contains(n));
            if is_variant(&v) && (v.get("status").is_none() || failing) {
                let status = if failing { "False" } else { "True" };
                v["status"] = json!({"conditions": [{"type": "Ready", "status": status,
                    "lastTransitionTime": "2026-11-25T12:00:00Z", "reason": "NoErrors",
                    "message": "successfully ensured downstream package variant"}]});
            }
            v
        })
        .collect()
}

/// The fleet at revision 1, every variant Ready.
fn at_revision_1(rollout: &Value) -> Vec<Value> {
    let (out, parsed) = run_json(&fleet(), &set(1, rollout.clone()));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let items = items_of(&parsed);
    assert_eq!(at(&items, 1).len(), 20, "{}", out.stdout);
    controller(&items, &[])
}

/// One step of the rollout at revision 2: the run's output items and summary.
fn step(items: &[Value], rollout: &Value) -> (Vec<Value>, String) {
    let (out, parsed) = run_json(items, &set(2, rollout.clone()));
    assert_eq!(out.code, 0, "{}", out.stdout);
    (items_of(&parsed), summary(&parsed))
}

#[test]
fn a_twenty_site_fleet_moves_wave_by_wave_and_then_stops_changing() {
    let rollout = json!({"maxUpgrades": 5, "waveExpr": "int(target.labels['wave'])",
        "requireReady": true});
    let mut items = at_revision_1(&rollout);
    // (sites at revision 2 after the step, upgraded, waiting)
    let expected = [
        (
            sites(0..4),
            4,
            16,
            "wave 1 (1 of 3, maxUpgrades 5: 5 per run)",
        ),
        (
            sites(0..9),
            5,
            11,
            "wave 2 (2 of 3, maxUpgrades 5: 5 per run)",
        ),
        (sites(0..10), 1, 10, "wave 2 (2 of 3"),
        (sites(0..15), 5, 5, "wave 3 (3 of 3"),
        (sites(0..20), 5, 0, "wave 3 (3 of 3"),
    ];
    for (n, (on_2, upgraded, waiting, wave)) in expected.into_iter().enumerate() {
        let (out, summary) = step(&items, &rollout);
        assert_eq!(at(&out, 2), on_2, "step {n}: {summary}");
        assert_eq!(at(&out, 1).len(), 20 - on_2.len(), "step {n}");
        assert!(
            summary.contains(&format!("; rollout of the new upstream: {wave}"))
                && summary.contains(&format!(" {upgraded} upgraded ("))
                && summary.contains(&format!(", {waiting} waiting")),
            "step {n}: {summary}"
        );
        // The upgraded variants are written without the status of their old spec; the others
        // keep theirs.
        let without_status = out
            .iter()
            .filter(|v| is_variant(v) && v.get("status").is_none())
            .count();
        assert_eq!(without_status, upgraded, "step {n}");
        items = controller(&out, &[]);
    }
    // Every variant on revision 2 and Ready: the next run changes nothing.
    let (out, summary) = step(&items, &rollout);
    assert_eq!(out, items, "{summary}");
    assert!(summary.contains("0 updated, 20 unchanged"), "{summary}");
    assert!(!summary.contains("rollout of"), "{summary}");
    // Issue 48: a finished rollout says so.
    assert!(
        summary.ends_with("; rollout complete: all 20 on revision 2"),
        "{summary}"
    );
}

#[test]
fn a_variant_that_is_not_ready_blocks_the_next_step() {
    let rollout = json!({"waveExpr": "int(target.labels['wave'])", "requireReady": true});
    let items = at_revision_1(&rollout);
    let (out, _) = step(&items, &rollout);
    assert_eq!(at(&out, 2), sites(0..4));
    // site-02 reports Ready False: wave 2 does not start, nothing changes.
    let blocked = controller(&out, &["site-02"]);
    let (again, summary) = step(&blocked, &rollout);
    assert_eq!(again, blocked, "{summary}");
    assert!(
        summary.contains("0 upgraded, 16 waiting (fleet-site-04-base, ")
            && summary.contains(", 1 blocking (fleet-site-02-base): requireReady waits"),
        "{summary}"
    );
    // A stale Ready (observedGeneration behind the generation) blocks too.
    let mut stale = controller(&out, &[]);
    for v in stale
        .iter_mut()
        .filter(|v| v["metadata"]["name"] == "fleet-site-03-base")
    {
        v["metadata"]["generation"] = json!(2);
        v["status"]["conditions"][0]["observedGeneration"] = json!(1);
    }
    let (_, summary) = step(&stale, &rollout);
    assert!(
        summary.contains("1 blocking (fleet-site-03-base)"),
        "{summary}"
    );
    // Without requireReady, the same state goes on to wave 2.
    let eager = json!({"waveExpr": "int(target.labels['wave'])"});
    let (moved, summary) = step(&blocked, &eager);
    assert_eq!(at(&moved, 2), sites(0..10), "{summary}");
}

/// A status with two conditions of type Ready (issue 29: `[Ready False, Ready True]` let the
/// next wave go): read as Kubernetes reads conditions, one per type, and a doubt blocks, in
/// either order.
#[test]
fn two_ready_conditions_block_the_next_step() {
    let rollout = json!({"waveExpr": "int(target.labels['wave'])", "requireReady": true});
    let items = at_revision_1(&rollout);
    let (out, _) = step(&items, &rollout);
    assert_eq!(at(&out, 2), sites(0..4));
    for twice in [["False", "True"], ["True", "False"]] {
        let mut doubtful = controller(&out, &[]);
        for v in doubtful
            .iter_mut()
            .filter(|v| v["metadata"]["name"] == "fleet-site-01-base")
        {
            v["status"]["conditions"] = json!([
                {"type": "Ready", "status": twice[0], "reason": "NoErrors", "message": "a"},
                {"type": "Ready", "status": twice[1], "reason": "NoErrors", "message": "b"}]);
        }
        let (again, summary) = step(&doubtful, &rollout);
        assert_eq!(again, doubtful, "{twice:?}: {summary}");
        assert!(
            summary.contains("0 upgraded, 16 waiting")
                && summary.contains("1 blocking (fleet-site-01-base)")
                && summary.contains("more than one is read as not Ready"),
            "{twice:?}: {summary}"
        );
    }
}

#[test]
fn max_upgrades_as_a_share_rounds_up_and_orders_by_name() {
    // No waveExpr: one wave, in name order; 12% of 20 is 2.4, so 3 per run.
    let rollout = json!({"maxUpgrades": "12%"});
    let mut items = at_revision_1(&rollout);
    for run in 1..=7 {
        let (out, summary) = step(&items, &rollout);
        let done = (run * 3).min(20);
        assert_eq!(at(&out, 2), sites(0..done), "run {run}: {summary}");
        assert!(
            summary.contains("rollout of the new upstream: maxUpgrades 12%: 3 per run: "),
            "{summary}"
        );
        items = controller(&out, &[]);
    }
    // 25% of 20 is 5.
    let rollout = json!({"maxUpgrades": "25%"});
    let (out, summary) = step(&at_revision_1(&rollout), &rollout);
    assert_eq!(at(&out, 2), sites(0..5), "{summary}");
}

#[test]
fn string_waves_order_as_strings() {
    let rollout = json!({"waveExpr": "target.labels['wave'] == '1' ? 'a-canary' : 'b-rest'"});
    let items = at_revision_1(&rollout);
    let (out, summary) = step(&items, &rollout);
    assert_eq!(at(&out, 2), sites(0..4), "{summary}");
    assert!(summary.contains("wave \"a-canary\" (1 of 2)"), "{summary}");
    let (out, _) = step(&controller(&out, &[]), &rollout);
    assert_eq!(at(&out, 2), sites(0..20));
}

#[test]
fn new_targets_start_with_their_wave() {
    let rollout = json!({"maxUpgrades": 1, "waveExpr": "int(target.labels['wave'])",
        "requireReady": true});
    let mut items = at_revision_1(&rollout);
    items.push(repository("site-20", Some("3")));
    items.push(repository("site-21", Some("1")));
    let (out, summary) = step(&items, &rollout);
    // One upgrade (the first of wave 1); the new site of wave 1 at revision 2, the one of
    // wave 3 waits for its wave (created now, revision 2 would reach wave 3 first).
    assert_eq!(at(&out, 2), ["site-00", "site-21"], "{summary}");
    assert!(
        summary.contains("1 created (fleet-site-21-base)")
            && summary.contains("1 upgraded (fleet-site-00-base), 19 waiting")
            && summary.contains("1 waiting to be created (fleet-site-20-base)"),
        "{summary}"
    );
    // Run after run, it is created once waves 1 and 2 are on revision 2 and Ready.
    let mut items = controller(&out, &[]);
    for _ in 0..20 {
        items = controller(&step(&items, &rollout).0, &[]);
    }
    assert_eq!(at(&items, 2).len(), 22);
}

#[test]
fn a_held_back_variant_keeps_its_whole_spec() {
    let rollout = json!({"maxUpgrades": 2});
    let items = at_revision_1(&rollout);
    // The template changes too: the upgraded variants take the new label, the waiting ones
    // keep their whole spec (labels and revision).
    let mut config = set(2, rollout.clone());
    config["spec"]["targets"][0]["template"]["labels"]["generation"] = json!("b");
    let (out, parsed) = run_json(&items, &config);
    assert_eq!(out.code, 0, "{}", out.stdout);
    let out = items_of(&parsed);
    let label = |name: &str| {
        out.iter()
            .find(|v| v["metadata"]["name"] == name)
            .map(|v| v["spec"]["labels"]["generation"].clone())
            .unwrap_or(Value::Null)
    };
    assert_eq!(label("fleet-site-00-base"), "b");
    assert_eq!(label("fleet-site-01-base"), "b");
    assert_eq!(label("fleet-site-02-base"), "a");
    let held = |i: &[Value]| {
        i.iter()
            .find(|v| v["metadata"]["name"] == "fleet-site-19-base")
            .cloned()
    };
    assert_eq!(held(&out), held(&items));
    // A change without a new upstream is no upgrade: every variant takes it at once.
    let (_, parsed) = run_json(&controller(&out, &[]), &{
        let mut c = set(1, rollout.clone());
        c["spec"]["targets"][0]["template"]["labels"]["generation"] = json!("c");
        c
    });
    let labels: Vec<Value> = items_of(&parsed)
        .iter()
        .filter(|v| is_variant(v))
        .map(|v| v["spec"]["labels"]["generation"].clone())
        .collect();
    assert!(labels.iter().all(|l| l == "c"), "{labels:?}");
}

// ------------------------------------------------------------------ errors

/// The error results' (message, field) pairs of a failed run, which must change nothing.
fn errors(rollout: Value) -> Vec<(String, String)> {
    errors_of(&fleet(), &set(2, rollout))
}

fn errors_of(items: &[Value], config: &Value) -> Vec<(String, String)> {
    let (out, parsed) = run_json(items, config);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(!items_of(&parsed).iter().any(is_variant), "{}", out.stdout);
    error_fields(&parsed)
}

fn assert_one_error(found: Vec<(String, String)>, message: &str, field: &str) {
    assert_eq!(found.len(), 1, "{found:#?}");
    assert!(
        found[0].0.contains(message) && found[0].1 == field,
        "want {message:?} at {field}, got {found:#?}"
    );
}

#[test]
fn bad_max_upgrades_say_what_to_write() {
    let field = "spec.rollout.maxUpgrades";
    let write = "write a whole number of variants from 1 (maxUpgrades: 5) or a percentage of the existing variants from \"1%\" to \"100%\"";
    for (value, message) in [
        (json!("25 %"), format!("\"25 %\" is not a number or a percentage; {write}")),
        (json!(0), format!("0 would never upgrade anything; {write}")),
        (json!("0%"), format!("\"0%\" would never upgrade anything; {write}")),
        (json!("150%"), format!("\"150%\" is more than all of them; {write}")),
        (json!(-2), format!("-2 is not a number of variants; {write}")),
        (json!(2.5), format!("2.5 is not a number of variants; {write}")),
        (json!("5"), "\"5\" is a string: write maxUpgrades: 5 without quotes for a number of variants, or \"5%\" for a share".to_string()),
        (json!(true), format!("true is not a number or a percentage; {write}")),
    ] {
        assert_one_error(errors(json!({"maxUpgrades": value})), &message, field);
    }
}

#[test]
fn a_wave_expression_must_give_an_int_or_a_string() {
    let field = "spec.rollout.waveExpr";
    assert_one_error(
        errors(json!({"waveExpr": "target.labels['wave'] == '1'"})),
        "must give an int or a string (the target's wave), but \"target.labels['wave'] == '1'\" is of type bool; e.g. int(target.labels['wave'])",
        field,
    );
    assert_one_error(
        errors(json!({"waveExpr": "  "})),
        "is empty: write a CEL expression giving each target's wave",
        field,
    );
    assert_one_error(
        errors(json!({"waveExpr": "wave + 1"})),
        "undeclared reference to 'wave'",
        field,
    );
    assert_one_error(
        errors(json!({"waveExpr": "double(target.labels['wave'])"})),
        "but \"double(target.labels['wave'])\" is of type double",
        field,
    );
    // A dyn value is checked when it is evaluated.
    assert_one_error(
        errors(json!({"waveExpr": "dyn(double(target.labels['wave']))"})),
        "for Repository \"site-00\" (PackageVariant \"fleet-site-00-base\"): expression returned a value of type double, not an int or a string",
        field,
    );
}

#[test]
fn a_wave_that_fails_for_a_target_names_it() {
    let mut items = fleet();
    items.push(repository("site-99", None));
    assert_one_error(
        errors_of(&items, &set(2, json!({"waveExpr": "int(target.labels['wave'])"}))),
        "for Repository \"site-99\" (PackageVariant \"fleet-site-99-base\"): no such key: wave; target.labels has the keys fleet",
        "spec.rollout.waveExpr",
    );
    // Ints for some targets and strings for others.
    assert_one_error(
        errors(json!({"waveExpr": "{'1': dyn(1), '2': dyn('b'), '3': dyn('c')}[target.labels['wave']]"})),
        "gives int 1 for Repository \"site-00\" (PackageVariant \"fleet-site-00-base\") but string \"b\" for Repository \"site-04\" (PackageVariant \"fleet-site-04-base\"): the waves must be all ints or all strings",
        "spec.rollout.waveExpr",
    );
}

#[test]
fn rollout_typos_and_empties_are_refused() {
    assert_one_error(
        errors(json!({"maxUpgrade": 5})),
        "unknown field \"maxUpgrade\"; did you mean \"maxUpgrades\"?",
        "spec.rollout.maxUpgrade",
    );
    assert_one_error(
        errors(json!({"requireReady": "yes"})),
        "invalid type: string \"yes\", expected a boolean (true or false)",
        "spec.rollout.requireReady",
    );
    assert_one_error(
        errors(json!({})),
        "is empty: give maxUpgrades (e.g. \"25%\"), waveExpr (e.g. int(target.labels['wave'])), requireReady: true, readyExpr or deletionOrder: Reverse, or remove rollout",
        "spec.rollout",
    );
    let mut config = set(2, Value::Null);
    config["spec"]["rolout"] = json!({"maxUpgrades": 1});
    assert_one_error(
        errors_of(&fleet(), &config),
        "unknown field \"rolout\"; did you mean \"rollout\"?",
        "spec.rolout",
    );
}

#[test]
fn rollout_under_porchs_set_is_refused_with_a_hint() {
    let mut config = set(2, json!({"maxUpgrades": 1}));
    config["apiVersion"] = json!("config.porch.kpt.dev/v1alpha2");
    assert_one_error(
        errors_of(&fleet(), &config),
        "unknown field \"rollout\": rollout is an extension of this function, not a field of Porch's PackageVariantSet; write apiVersion: fn.kpt.dev/v1alpha1 to use it",
        "spec.rollout",
    );
}

/// 10,000 existing variants, all to upgrade, in 100 waves: one sort, so a run stays fast.
#[test]
fn a_large_fleet_is_decided_in_bounded_time() {
    let n = 10_000;
    let mut items = vec![package_revision(1), package_revision(2)];
    for i in 0..n {
        let wave = (i % 100).to_string();
        items.push(repository(&format!("site-{i:05}"), Some(&wave)));
        items.push(
            json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "PackageVariant",
            "metadata": {"name": format!("fleet-site-{i:05}-base"), "namespace": "default",
                "labels": {"config.porch.kpt.dev/packagevariantset": "fleet"}},
            "spec": {"upstream": {"repo": "blueprints", "package": "base", "revision": 1},
                "downstream": {"repo": format!("site-{i:05}"), "package": "base"},
                "labels": {"generation": "a"}},
            "status": {"conditions": [{"type": "Ready", "status": "True"}]}}),
        );
    }
    let rollout = json!({"maxUpgrades": "1%", "waveExpr": "int(target.labels['wave'])",
        "requireReady": true});
    let started = std::time::Instant::now();
    let (out, summary) = step(&items, &rollout);
    // Wall time over two runs: only a hang fails, even on a loaded machine.
    assert!(started.elapsed().as_secs() < 300, "{:?}", started.elapsed());
    assert_eq!(at(&out, 2).len(), 100, "{summary}");
    assert!(
        summary.contains("wave 0 (1 of 100, maxUpgrades 1%: 100 per run): 100 upgraded"),
        "{summary}"
    );
    assert!(
        summary.contains(", and 80 more), 9900 waiting ("),
        "{summary}"
    );
}

// ------------------------------------------------------------------ the example, step by step

/// (name, spec, status) of each PackageVariant.
fn variant_states(items: &[Value]) -> Vec<(Value, Value, Value)> {
    let mut out: Vec<_> = items
        .iter()
        .filter(|v| is_variant(v))
        .map(|v| {
            (
                v["metadata"]["name"].clone(),
                v["spec"].clone(),
                v.get("status").cloned().unwrap_or(Value::Null),
            )
        })
        .collect();
    out.sort_by_key(|(n, _, _)| n.to_string());
    out
}

/// Each step of the example is the previous step's output plus the Ready status a controller
/// writes, and the three waves upgrade the canary, then the east, then the west.
#[test]
fn the_example_steps_follow_one_another() {
    let waves = [
        vec!["canary-1"],
        vec!["canary-1", "east-1", "east-2"],
        vec!["canary-1", "east-1", "east-2", "west-1", "west-2", "west-3"],
    ];
    for (n, on_2) in (1..=3).zip(waves) {
        let (items, config) = example_step("pvs-rollout", n);
        let (out, parsed) = run_json(&items, &config);
        assert_eq!(out.code, 0, "step {n}: {}", out.stdout);
        let output = items_of(&parsed);
        // `at` reads the names past `fleet-`: the example's set is `fleet-base`.
        let on_2: Vec<String> = on_2.iter().map(|s| format!("base-{s}")).collect();
        assert_eq!(at(&output, 2), on_2, "step {n}");
        let reconciled = controller(&output, &[]);
        let (next, _) = example_step("pvs-rollout", n + 1);
        assert_eq!(
            variant_states(&reconciled),
            variant_states(&next),
            "step {n}'s output, reconciled, is not step {}'s input",
            n + 1
        );
    }
    // The last step changes nothing.
    let (items, config) = example_step("pvs-rollout", 4);
    let (_, parsed) = run_json(&items, &config);
    assert_eq!(variant_states(&items_of(&parsed)), variant_states(&items));
}

#[test]
fn help_lists_the_rollout() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_package-variant"))
        .arg("--help")
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for line in [
        "  spec.rollout (object)",
        "  spec.rollout.maxUpgrades (integer or string)",
        "  spec.rollout.waveExpr (string)",
        "  spec.rollout.requireReady (boolean)",
    ] {
        assert!(help.contains(line), "{line:?} not in --help");
    }
}

/// The example's set validates against the extension's CRD, and a typo in `rollout` does not.
#[test]
fn the_example_set_validates_against_the_crd() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let parse = |path: &str| {
        let text = std::fs::read_to_string(root.join(path)).unwrap();
        yaml::to_json(&yaml::parse(&text).unwrap()).unwrap()
    };
    let crd = parse("fnconfig/schemas/fn.kpt.dev/packagevariantset.yaml");
    let schema = openapi::schema_for(&crd, EXT, "PackageVariantSet").unwrap();
    let (_, config) = example_step("pvs-rollout", 1);
    assert_eq!(openapi::validate(&schema, &config), Vec::<String>::new());
    let mut bad = config.clone();
    bad["spec"]["rollout"]["requireRedy"] = json!(true);
    assert!(!openapi::validate(&schema, &bad).is_empty());
}

/// The bench workload W2 with a rollout (`gen w2-rollout`) is a valid input that does what the
/// bench claims: its existing variants are upgrades, and a quarter of them per run, one region
/// first. W2 has no status on its variants, which does not block the first wave.
#[test]
fn the_rollout_bench_workload_decides_a_wave() {
    let out = run(&workloads::w2_rollout(workloads::W2::with_repositories(
        400,
    )));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let results = common::results_section(&out.stdout);
    assert!(
        results.contains("rollout of the new upstream: wave \"asia-east1\" (1 of 7, maxUpgrades 25%: 9 per run): 5 upgraded"),
        "{results}"
    );
}

/// A PackageRevision of `blueprints/PACKAGE` at `revision`, tagged `stable` or not.
fn tagged_revision(package: &str, revision: i64, stable: bool) -> Value {
    let mut pr = json!({"apiVersion": "porch.kpt.dev/v1alpha1", "kind": "PackageRevision",
        "metadata": {"name": format!("blueprints.{package}.v{revision}")},
        "spec": {"repository": "blueprints", "packageName": package, "revision": revision,
            "lifecycle": "Published"}});
    if stable {
        pr["metadata"]["labels"] = json!({"package-variant.fn.kpt.dev/tag-stable": "true"});
    }
    pr
}

/// A floating tag and a second upstream under one rollout: when the tag moves to revision 2
/// and the second upstream is pinned to its revision 2, each variant's wave is computed with
/// its own upstream (`upstream` is that upstream's PackageRevision's metadata), so the `redis` variants
/// (wave 0) go first, then the `base` variants wave by wave, and then nothing changes.
#[test]
fn a_moving_tag_and_a_second_upstream_roll_out_in_waves() {
    let sites = ["site-00", "site-01", "site-02", "site-03"];
    let repos = sites
        .iter()
        .zip(["1", "1", "2", "2"])
        .map(|(s, w)| repository(s, Some(w)));
    let config = |redis: i64| {
        json!({"apiVersion": EXT, "kind": "PackageVariantSet", "metadata": {"name": "fleet"},
            "spec": {"upstreams": [
                    {"repo": "blueprints", "package": "base", "tag": "stable"},
                    {"repo": "blueprints", "package": "redis", "revision": redis}],
                "targets": [{"repositorySelector": {"matchLabels": {"fleet": "yes"}}}],
                "rollout": {"waveExpr":
                    "upstream.name.startsWith('blueprints.redis.') ? 0 : int(target.labels['wave'])"}}})
    };
    let revisions_now = |stable_on: i64| -> Vec<Value> {
        let mut items = vec![
            tagged_revision("base", 1, stable_on == 1),
            tagged_revision("base", 2, stable_on == 2),
            tagged_revision("redis", 1, false),
            tagged_revision("redis", 2, false),
        ];
        items.extend(repos.clone());
        items
    };
    // The fleet made while `stable` was on revision 1.
    let (out, parsed) = run_json(&revisions_now(1), &config(1));
    assert_eq!(out.code, 0, "{}", out.stdout);
    let made = items_of(&parsed);
    let all_at = |rev: i64| -> BTreeMap<String, i64> {
        sites
            .iter()
            .flat_map(|s| ["base", "redis"].map(|p| (format!("fleet-{s}-{p}"), rev)))
            .collect()
    };
    assert_eq!(revisions(&made), all_at(1), "{}", out.stdout);
    for v in made.iter().filter(|v| is_variant(v)) {
        let tag = &v["metadata"]["annotations"]["package-variant.fn.kpt.dev/upstream-tag"];
        let base = v["spec"]["upstream"]["package"] == "base";
        assert_eq!(tag.as_str(), base.then_some("stable"), "{v}");
    }
    // The tag moves to revision 2, and redis is pinned to its revision 2.
    let mut items: Vec<Value> = revisions_now(2)
        .into_iter()
        .chain(controller(&made, &[]).into_iter().filter(is_variant))
        .collect();
    let upgraded_by_step = [
        vec![
            "site-00-redis",
            "site-01-redis",
            "site-02-redis",
            "site-03-redis",
        ],
        vec!["site-00-base", "site-01-base"],
        vec!["site-02-base", "site-03-base"],
        vec![],
    ];
    let mut on_2: Vec<String> = Vec::new();
    for (n, upgraded) in upgraded_by_step.iter().enumerate() {
        let (out, parsed) = run_json(&items, &config(2));
        assert_eq!(out.code, 0, "step {n}: {}", out.stdout);
        let output = items_of(&parsed);
        on_2.extend(upgraded.iter().map(|u| format!("fleet-{u}")));
        let expected: BTreeMap<String, i64> = all_at(1)
            .into_keys()
            .map(|k| {
                let rev = if on_2.contains(&k) { 2 } else { 1 };
                (k, rev)
            })
            .collect();
        assert_eq!(
            revisions(&output),
            expected,
            "step {n}: {}",
            summary(&parsed)
        );
        if upgraded.is_empty() {
            assert!(
                summary(&parsed).contains("0 updated"),
                "{}",
                summary(&parsed)
            );
        } else {
            assert!(
                summary(&parsed).contains(&format!("{} upgraded (", upgraded.len())),
                "step {n}: {}",
                summary(&parsed)
            );
        }
        assert!(
            summary(&parsed).contains("tag \"stable\" of blueprints/base resolved to revision 2"),
            "{}",
            summary(&parsed)
        );
        items = controller(&output, &[]);
    }
}
