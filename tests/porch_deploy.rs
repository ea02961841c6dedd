//! `deploy/porch/` (issue 31 item 5): each manifest is a `FunctionConfig` with only the fields
//! of Porch's type (kptdev/porch `api/porchconfig/v1alpha1/function_config_types.go`), the
//! constraints its kubebuilder markers state, and tags that match the crate's version, the
//! tag the image is built under.

use package_variant::yaml;
use serde_json::Value;
use std::fs;
use std::path::Path;

/// The fields of `FunctionConfigSpec` and its executors, as (path, allowed keys).
const FIELDS: &[(&str, &[&str])] = &[
    ("", &["apiVersion", "kind", "metadata", "spec"]),
    (
        "spec",
        &[
            "image",
            "prefixes",
            "podExecutor",
            "binaryExecutor",
            "goExecutor",
        ],
    ),
    (
        "spec.podExecutor",
        &[
            "tags",
            "timeToLive",
            "maxParallelExecutions",
            "preferredMaxQueueLength",
            "templateOverrides",
        ],
    ),
    ("spec.binaryExecutor", &["tags", "path"]),
    ("spec.goExecutor", &["tags", "id"]),
];

fn check_keys(v: &Value, path: &str, problems: &mut Vec<String>) {
    let Some((_, allowed)) = FIELDS.iter().find(|(p, _)| *p == path) else {
        return;
    };
    let Some(o) = v.as_object() else {
        problems.push(format!("{path} is not an object"));
        return;
    };
    for (k, child) in o {
        if !allowed.contains(&k.as_str()) {
            problems.push(format!("{path}.{k}: not a field of Porch's FunctionConfig"));
        }
        let sub = if path.is_empty() {
            k.clone()
        } else {
            format!("{path}.{k}")
        };
        check_keys(child, &sub, problems);
    }
}

fn manifests() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("deploy/porch");
    let mut out = Vec::new();
    for entry in fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "yaml") {
            let text = fs::read_to_string(&path).unwrap();
            let node = yaml::parse(&text).unwrap();
            out.push((path.display().to_string(), yaml::to_json(&node).unwrap()));
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

#[test]
fn the_manifests_are_porch_function_configs() {
    let ms = manifests();
    assert_eq!(ms.len(), 2, "one per evaluator");
    let tag = format!("v{}", env!("CARGO_PKG_VERSION"));
    let mut executors = Vec::new();
    for (file, m) in &ms {
        let mut problems = Vec::new();
        check_keys(m, "", &mut problems);
        assert!(problems.is_empty(), "{file}: {problems:?}");
        assert_eq!(m["apiVersion"], "config.porch.kpt.dev/v1alpha1", "{file}");
        assert_eq!(m["kind"], "FunctionConfig", "{file}");
        let spec = &m["spec"];
        // +kubebuilder:validation:MinLength=1, and the image metadata.yaml names.
        assert_eq!(
            spec["image"], "ghcr.io/package-variant/package-variant",
            "{file}"
        );
        // The XValidation rule: at least one executor.
        let present: Vec<&str> = ["podExecutor", "binaryExecutor", "goExecutor"]
            .into_iter()
            .filter(|e| spec.get(*e).is_some())
            .collect();
        assert_eq!(present.len(), 1, "{file}: one executor per manifest");
        let exec = &spec[present[0]];
        let tags: Vec<&str> = exec["tags"]
            .as_array()
            .map(|t| t.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        assert_eq!(tags, [tag.as_str()], "{file}: tags are the image's tag");
        match present[0] {
            "binaryExecutor" => {
                // MinLength=1; relative to the functions folder.
                assert_eq!(exec["path"], "package-variant", "{file}");
            }
            "podExecutor" => {
                // A Go duration (Format=duration) and a count.
                let ttl = exec["timeToLive"].as_str().unwrap_or("");
                assert!(
                    ttl.ends_with('m') && ttl[..ttl.len() - 1].parse::<u32>().is_ok(),
                    "{file}: timeToLive {ttl:?}"
                );
                assert!(exec["maxParallelExecutions"]
                    .as_u64()
                    .is_some_and(|n| n > 0));
            }
            other => panic!("{file}: unexpected executor {other}"),
        }
        executors.push(present[0]);
    }
    executors.sort_unstable();
    assert_eq!(executors, ["binaryExecutor", "podExecutor"]);
}

/// docs/porch.md describes both manifests, the message limit and what was not run.
#[test]
fn the_guide_names_both_ways() {
    let doc =
        fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/porch.md")).unwrap();
    for part in [
        "deploy/porch/functionconfig-binary.yaml",
        "deploy/porch/functionconfig-pod.yaml",
        "6 MiB (6,291,456 bytes)",
        "shows only stderr",
        "What was run here and what was not.",
        &format!("v{}", env!("CARGO_PKG_VERSION")),
    ] {
        assert!(doc.contains(part), "docs/porch.md lacks {part:?}");
    }
}
