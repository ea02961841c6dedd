//! What a PackageVariant run says about itself, through the binary: one info summary first
//! among its results (context keys, pipeline positions, injections, gates, conditions, items
//! changed); a refused run keeps its warnings and infos; a cluster copy kept in a file must be
//! marked local-config; a PackageVariant of the package's own files that adds pipeline
//! functions is warned about.

mod common;
mod shell;

use serde_json::{json, Value};

fn kptfile() -> Value {
    json!({"apiVersion": "kpt.dev/v1", "kind": "Kptfile",
        "metadata": {"name": "pkg", "annotations": {"config.kubernetes.io/path": "Kptfile"}},
        "pipeline": {"mutators": [{"name": "upstream-setters", "image": "apply-setters:v0.2"}]}})
}

fn context() -> Value {
    json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": "kptfile.kpt.dev", "annotations": {
            "config.kubernetes.io/local-config": "true",
            "config.kubernetes.io/path": "package-context.yaml"}},
        "data": {"name": "pkg", "legacy": "x"}})
}

fn point(kind_api: (&str, &str), name: &str, how: &str) -> Value {
    json!({"apiVersion": kind_api.0, "kind": kind_api.1,
        "metadata": {"name": name, "annotations": {"kpt.dev/config-injection": how,
            "config.kubernetes.io/path": format!("{name}.yaml")}},
        "data": {"db": "placeholder"}})
}

/// An in-cluster ConfigMap of namespace `default`; `path` puts it in a file of the package.
fn cluster_cm(name: &str, path: Option<&str>, local: bool) -> Value {
    let mut annotations = json!({"config.porch.kpt.dev/in-cluster": "true"});
    if let Some(p) = path {
        annotations["config.kubernetes.io/path"] = json!(p);
    }
    if local {
        annotations["config.kubernetes.io/local-config"] = json!("true");
    }
    json!({"apiVersion": "v1", "kind": "ConfigMap",
        "metadata": {"name": name, "namespace": "default", "annotations": annotations},
        "data": {"db": format!("db.{name}.example.com")}})
}

fn pv(annotations: Value, spec_extra: Value) -> Value {
    let mut spec = json!({"upstream": {"repo": "blueprints", "package": "base", "revision": 1},
        "downstream": {"repo": "deployments", "package": "base"}});
    if let (Some(s), Some(extra)) = (spec.as_object_mut(), spec_extra.as_object()) {
        s.extend(extra.clone());
    }
    json!({"apiVersion": "config.porch.kpt.dev/v1alpha1", "kind": "PackageVariant",
        "metadata": {"name": "web", "annotations": annotations}, "spec": spec})
}

fn results(out: &Value) -> Vec<Value> {
    out["results"].as_array().cloned().unwrap_or_default()
}

fn messages(out: &Value, severity: &str) -> Vec<String> {
    results(out)
        .iter()
        .filter(|r| r["severity"] == severity)
        .map(|r| r["message"].as_str().unwrap_or("").to_string())
        .collect()
}

#[test]
fn the_summary_comes_first_and_says_what_the_run_set() {
    let items = vec![
        kptfile(),
        context(),
        point(("v1", "ConfigMap"), "endpoints", "required"),
        // No Team in the cluster: left unfilled.
        point(("hr.example.com/v1alpha1", "Team"), "team", "optional"),
        cluster_cm("us-east1-endpoints", None, false),
    ];
    let config = pv(
        json!({}),
        json!({
            "packageContext": {"data": {"region": "us-east1", "tier": "gold"},
                "removeKeys": ["legacy"]},
            "pipeline": {
                "mutators": [{"name": "set-ns", "image": "set-namespace:v0.4"}],
                "validators": [{"name": "kubeconform", "image": "kubeconform:v0.1"}]},
            "injectors": [{"name": "us-east1-endpoints"}]
        }),
    );
    let (run, out) = common::run_json(&items, &config);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let all = results(&out);
    let first = &all[0];
    assert_eq!(first["severity"], "info", "{first}");
    assert_eq!(first["resourceRef"]["kind"], "PackageVariant", "{first}");
    assert_eq!(
        first["message"],
        "PackageVariant \"web\": context set [region, tier] removed [legacy]; pipeline \
         [mutators[0] PackageVariant.web.set-ns.0, validators[0] \
         PackageVariant.web.kubeconform.0]; injected [ConfigMap/endpoints <- \
         \"us-east1-endpoints\"]; readiness gates [config.injection.ConfigMap.endpoints]; \
         conditions [config.injection.ConfigMap.endpoints=True, \
         config.injection.Team.team=False]; 3 items changed"
    );
    // One summary: no other result speaks for the whole PackageVariant.
    let summaries = all
        .iter()
        .filter(|r| {
            r["message"]
                .as_str()
                .is_some_and(|m| m.starts_with("PackageVariant \"web\": "))
        })
        .count();
    assert_eq!(summaries, 1, "{all:?}");

    // A second run on the output (the cluster copy fed again) changes nothing and says so.
    let mut again = common::items_of(&out);
    again.push(cluster_cm("us-east1-endpoints", None, false));
    let (run2, out2) = common::run_json(&again, &config);
    assert_eq!(run2.code, 0, "{}", run2.stdout);
    let m = results(&out2)[0]["message"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(m.ends_with("; no change"), "{m}");
    assert!(
        m.contains("pipeline [mutators[0] PackageVariant.web.set-ns.0,"),
        "{m}"
    );
}

#[test]
fn the_summary_names_where_a_placement_puts_the_functions() {
    let mut config = pv(
        json!({}),
        json!({"pipeline": {"mutators": [
                {"name": "a", "image": "a:v1"}, {"name": "b", "image": "b:v1"}]},
            "pipelinePlacement": {"position": "last"}}),
    );
    config["apiVersion"] = json!("fn.kpt.dev/v1alpha1");
    let (run, out) = common::run_json(&[kptfile(), context()], &config);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        results(&out)[0]["message"],
        "PackageVariant \"web\": pipeline [mutators[1] PackageVariant.web.a.0, mutators[2] \
         PackageVariant.web.b.1]; 1 item changed"
    );
}

#[test]
fn a_variant_that_asks_for_nothing_says_no_change() {
    let (run, out) = common::run_json(&[kptfile(), context()], &pv(json!({}), json!({})));
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert_eq!(
        messages(&out, "info"),
        ["PackageVariant \"web\": no change"]
    );
}

#[test]
fn wide_lists_in_the_summary_are_cut_and_counted() {
    let data: serde_json::Map<String, Value> =
        (0..30).map(|i| (format!("k{i:02}"), json!("v"))).collect();
    let config = pv(json!({}), json!({"packageContext": {"data": data}}));
    let (run, out) = common::run_json(&[kptfile(), context()], &config);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let m = results(&out)[0]["message"]
        .as_str()
        .unwrap_or("")
        .to_string();
    assert!(
        m.starts_with("PackageVariant \"web\": context set [k00, k01, ")
            && m.contains(", k19, and 10 more]; 1 item changed"),
        "{m}"
    );
}

#[test]
fn a_refused_run_keeps_its_warnings_and_infos() {
    // Strict about unfilled points, a named place for cluster copies, and no copy there: the
    // warning about the empty place explains the error.
    let items = vec![
        kptfile(),
        context(),
        point(("v1", "ConfigMap"), "endpoints", "required"),
        point(("v1", "ConfigMap"), "extras", "optional"),
    ];
    let config = pv(
        json!({"package-variant.fn.kpt.dev/unfilled": "error",
               "package-variant.fn.kpt.dev/cluster-objects": "in-cluster/"}),
        json!({"injectors": [{"name": "us-east1-endpoints"}]}),
    );
    let (run, out) = common::run_json(&items, &config);
    assert_eq!(run.code, 1, "{}", run.stdout);
    let errors = messages(&out, "error");
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].contains("required injection point ConfigMap/endpoints not filled"),
        "{errors:?}"
    );
    let warnings = messages(&out, "warning");
    assert!(
        warnings.iter().any(|w| w.starts_with(
            "the PackageVariant names \"in-cluster/\" for cluster copies (annotation \
             package-variant.fn.kpt.dev/cluster-objects) but no item is there"
        )),
        "{warnings:?}"
    );
    let infos = messages(&out, "info");
    assert!(
        infos
            .iter()
            .any(|m| m.starts_with("optional injection point ConfigMap/extras not filled")),
        "{infos:?}"
    );
    // No summary: nothing was applied.
    assert!(
        !infos
            .iter()
            .any(|m| m.starts_with("PackageVariant \"web\":")),
        "{infos:?}"
    );
    // Errors first, then warnings, then infos.
    let order: Vec<String> = results(&out)
        .iter()
        .map(|r| r["severity"].as_str().unwrap_or("").to_string())
        .collect();
    assert_eq!(order, ["error", "warning", "info"], "{order:?}");
    // The items come back as they went in.
    assert_eq!(common::items_of(&out), items);
}

#[test]
fn a_refused_trust_check_keeps_the_warning_about_an_empty_place() {
    // A marked file at a path the PackageVariant does not name is an error; the other named
    // place that holds nothing is still reported.
    let items = vec![
        kptfile(),
        context(),
        cluster_cm("us-east1-endpoints", Some("elsewhere/cm.yaml"), true),
    ];
    let config = pv(
        json!({"package-variant.fn.kpt.dev/cluster-objects": "in-cluster/"}),
        json!({}),
    );
    let (run, out) = common::run_json(&items, &config);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_eq!(messages(&out, "error").len(), 1, "{out}");
    assert!(
        messages(&out, "warning")
            .iter()
            .any(|w| w.contains("names \"in-cluster/\" for cluster copies")),
        "{out}"
    );
    assert_eq!(common::items_of(&out), items);
}

#[test]
fn a_cluster_copy_in_a_file_must_be_marked_local_config() {
    let items = vec![
        kptfile(),
        context(),
        point(("v1", "ConfigMap"), "endpoints", "required"),
        cluster_cm("us-east1-endpoints", Some("in-cluster/cm.yaml"), false),
        cluster_cm("us-west1-endpoints", Some("in-cluster/west.yaml"), true),
        // Through stdin: kpt writes it to no file, so it needs no mark.
        cluster_cm("eu-endpoints", None, false),
    ];
    let config = pv(
        json!({"package-variant.fn.kpt.dev/cluster-objects": "in-cluster/"}),
        json!({"injectors": [{"name": "us-east1-endpoints"}]}),
    );
    let (run, out) = common::run_json(&items, &config);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let warnings: Vec<Value> = results(&out)
        .into_iter()
        .filter(|r| r["severity"] == "warning")
        .collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    let w = &warnings[0];
    assert!(
        w["message"].as_str().is_some_and(|m| m.starts_with(
            "ConfigMap/us-east1-endpoints in in-cluster/cm.yaml is read as a cluster object but \
             is not marked config.kubernetes.io/local-config: \"true\""
        )),
        "{w}"
    );
    assert_eq!(
        w["field"]["path"],
        "metadata.annotations[config.kubernetes.io/local-config]"
    );
    assert_eq!(w["resourceRef"]["name"], "us-east1-endpoints");
    // Still injected: the mark is advice, not a condition of trust.
    // The summary is the first info (the warning comes before it: errors, warnings, infos).
    let m = messages(&out, "info")[0].clone();
    assert!(
        m.contains("injected [ConfigMap/endpoints <- \"us-east1-endpoints\"]"),
        "{m}"
    );
}

/// A PackageVariant as kpt render passes it from `configPath: variant.yaml`.
fn own_file(mut config: Value) -> Value {
    config["metadata"]["annotations"] = json!({
        "config.kubernetes.io/path": "variant.yaml",
        "internal.config.kubernetes.io/path": "variant.yaml"});
    config
}

const SELF_PIPELINE: &str = "the PackageVariant is one of the package's own files (variant.yaml) \
     and its spec.pipeline adds functions to the package's Kptfile pipeline";

#[test]
fn a_variant_of_the_package_that_adds_pipeline_functions_is_warned_about() {
    let adds = json!({"pipeline": {"validators": [{"name": "kubeconform", "image": "k:v1"}]}});
    // The functionConfig carries its path (kpt render, and kpt 1.0 without the item).
    let config = own_file(pv(json!({}), adds.clone()));
    let (run, out) = common::run_json(&[kptfile(), context()], &config);
    assert_eq!(run.code, 0, "{}", run.stdout);
    let w: Vec<Value> = results(&out)
        .into_iter()
        .filter(|r| r["severity"] == "warning")
        .collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0]["message"]
            .as_str()
            .is_some_and(|m| m.starts_with(SELF_PIPELINE)),
        "{w:?}"
    );
    assert_eq!(w[0]["field"]["path"], "spec.pipeline");
    assert_eq!(w[0]["resourceRef"]["kind"], "PackageVariant");

    // No path on the functionConfig, but the same object among the items (kpt 1.0.0-beta.56
    // eval of a file inside the package): warned about too.
    let bare = pv(json!({}), adds.clone());
    let (_, out) = common::run_json(&[kptfile(), context(), own_file(bare.clone())], &bare);
    assert!(
        messages(&out, "warning")
            .iter()
            .any(|m| m.starts_with(SELF_PIPELINE)),
        "{out}"
    );

    // From outside the package, or adding no function: no warning.
    let (_, out) = common::run_json(&[kptfile(), context()], &bare);
    assert!(messages(&out, "warning").is_empty(), "{out}");
    let none = own_file(pv(json!({}), json!({"pipeline": {"mutators": []}})));
    let (_, out) = common::run_json(&[kptfile(), context()], &none);
    assert!(messages(&out, "warning").is_empty(), "{out}");
}

/// Under real kpt: a render whose PackageVariant (`configPath: variant.yaml`) adds a validator
/// warns that the next render runs it, and the summary names where it went.
#[test]
fn kpt_render_of_a_variant_that_adds_to_its_own_pipeline_warns() {
    let scratch = shell::Scratch::new("pv-self-pipeline");
    let dir = &scratch.0;
    let bin = shell::bin_dir(dir);
    let pkg = dir.join("pkg");
    shell::copy_dir(&shell::root().join("examples/render-pipeline"), &pkg);
    let variant = pkg.join("variant.yaml");
    let mut text = std::fs::read_to_string(&variant).unwrap();
    text.push_str(
        "  pipeline:\n    validators:\n    - image: ghcr.io/kptdev/krm-functions-catalog/kubeconform:v0.1\n      name: kubeconform\n",
    );
    std::fs::write(&variant, text).unwrap();
    let (code, log) = shell::sh(
        dir,
        &bin,
        "kpt fn render pkg --allow-exec --results-dir results && cat results/results.yaml",
    );
    assert_eq!(code, 0, "{log}");
    assert!(
        log.contains("message: 'the PackageVariant is one of the package''s own files (variant.yaml) and its spec.pipeline adds functions"),
        "{log}"
    );
    assert!(
        log.contains("pipeline [validators[0] PackageVariant.web-us-east1.kubeconform.0]"),
        "{log}"
    );
    let kptfile = std::fs::read_to_string(pkg.join("Kptfile")).unwrap();
    assert!(
        kptfile.contains("name: PackageVariant.web-us-east1.kubeconform.0"),
        "{kptfile}"
    );
}

/// Under real kpt: `unfilled: error` with no cluster copy where the PackageVariant says they
/// are fails, and kpt shows the warning that explains it beside the error; the package is left
/// as it was.
#[test]
fn kpt_eval_of_a_refused_run_shows_the_warning_that_explains_it() {
    let scratch = shell::Scratch::new("pv-refused-warnings");
    let dir = &scratch.0;
    let bin = shell::bin_dir(dir);
    let pkg = dir.join("pkg");
    shell::copy_dir(&shell::root().join("examples/injection"), &pkg);
    std::fs::remove_dir_all(pkg.join("in-cluster")).unwrap();
    std::fs::remove_dir_all(pkg.join(".expected")).unwrap();
    let before = std::fs::read_to_string(pkg.join("endpoints.yaml")).unwrap();
    let config = std::fs::read_to_string(shell::root().join("examples/injection/fn-config.yaml"))
        .unwrap()
        .replace(
            "package-variant.fn.kpt.dev/cluster-objects: in-cluster/objects.yaml",
            "package-variant.fn.kpt.dev/cluster-objects: in-cluster/\n    package-variant.fn.kpt.dev/unfilled: error",
        );
    assert!(config.contains("unfilled: error"), "{config}");
    std::fs::write(dir.join("pv.yaml"), config).unwrap();
    let (code, log) = shell::sh(
        dir,
        &bin,
        "kpt fn eval pkg --exec package-variant --fn-config pv.yaml --truncate-output=false",
    );
    assert_ne!(code, 0, "{log}");
    assert!(
        log.contains("required injection point ConfigMap/regional-endpoints not filled"),
        "{log}"
    );
    assert!(
        log.contains("the PackageVariant names \"in-cluster/\" for cluster copies"),
        "{log}"
    );
    assert_eq!(
        std::fs::read_to_string(pkg.join("endpoints.yaml")).unwrap(),
        before
    );
}
