//! The extension kinds' CRDs (`fnconfig/schemas/fn.kpt.dev/`): structural, served at
//! `fn.kpt.dev/v1alpha1`, and Porch's CRD field for field once the extension's own fields are
//! taken out; the extension's example functionConfigs validate against them.

mod openapi;

use package_variant::yaml;
use serde_json::Value;
use std::fs;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn json(path: &str) -> Value {
    let text = fs::read_to_string(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    let node = yaml::parse(&text).unwrap_or_else(|e| panic!("{path}: {e}"));
    yaml::to_json(&node).unwrap()
}

/// The extension's own fields, by (CRD file, path of the object that has them).
/// A JSON pointer to the properties of an object, and the extension's fields there.
type Place = (&'static str, &'static [&'static str]);

const EXTENSION_FIELDS: [(&str, &[Place]); 2] = [
    (
        "packagevariant.yaml",
        &[(
            "/properties/spec/properties",
            &["injection", "pipelinePlacement"],
        )],
    ),
    (
        "packagevariantset.yaml",
        &[
            (
                "/properties/spec/properties/targets/items/properties/template/properties",
                &["injection", "pipelinePlacement"],
            ),
            (
                "/properties/spec/properties/targets/items/properties",
                &["when"],
            ),
            (
                "/properties/spec/properties",
                &["rollout", "revisionActivationPolicy"],
            ),
            ("/properties/spec/properties/upstream/properties", &["tag"]),
            ("/properties/spec/properties", &["upstreams"]),
        ],
    ),
];

fn schema(crd: &Value) -> &Value {
    &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]
}

#[test]
fn extension_crds_are_porchs_plus_their_own_fields() {
    for (file, places) in EXTENSION_FIELDS {
        let porch = json(&format!("fnconfig/schemas/{file}"));
        let ext = json(&format!("fnconfig/schemas/fn.kpt.dev/{file}"));
        assert_eq!(ext["spec"]["group"], "fn.kpt.dev", "{file}");
        assert_eq!(ext["spec"]["versions"][0]["name"], "v1alpha1", "{file}");
        assert_eq!(
            ext["metadata"]["name"],
            Value::String(format!(
                "{}.fn.kpt.dev",
                porch["spec"]["names"]["plural"].as_str().unwrap()
            ))
        );
        assert_eq!(ext["spec"]["names"], porch["spec"]["names"], "{file}");
        let errors = openapi::check_schema(schema(&ext));
        assert!(errors.is_empty(), "{file}: {errors:#?}");
        let mut stripped = schema(&ext).clone();
        for (at, fields) in places.iter() {
            let props = stripped
                .pointer_mut(at)
                .and_then(Value::as_object_mut)
                .unwrap_or_else(|| panic!("{file}: no {at}"));
            for f in fields.iter() {
                assert!(props.shift_remove(*f).is_some(), "{file}: no {f}");
            }
        }
        assert_eq!(&stripped, schema(&porch), "{file}: Porch's fields differ");
    }
}

#[test]
fn the_extension_examples_validate_against_their_crd() {
    let crd = json("fnconfig/schemas/fn.kpt.dev/packagevariant.yaml");
    let s = openapi::schema_for(&crd, "fn.kpt.dev/v1alpha1", "PackageVariant").unwrap();
    let config = json("examples/point-injection/.expected/fn-config.yaml");
    assert_eq!(openapi::validate(&s, &config), Vec::<String>::new());
    let crd = json("fnconfig/schemas/fn.kpt.dev/packagevariantset.yaml");
    let set = openapi::schema_for(&crd, "fn.kpt.dev/v1alpha1", "PackageVariantSet").unwrap();
    let config = json("examples/point-injection-set/fleet/pvs.yaml");
    assert_eq!(openapi::validate(&set, &config), Vec::<String>::new());
    let config = json("examples/point-injection/.expected/fn-config.yaml");
    // A typo is refused by the schema too.
    let mut bad = config.clone();
    bad["spec"]["injection"][0]["bindingPont"] = Value::String("x".into());
    assert!(!openapi::validate(&s, &bad).is_empty());
}
