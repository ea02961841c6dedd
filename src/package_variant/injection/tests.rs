use super::*;
use crate::krm::object::MetaRecord;

fn point(ct: &str, file: &str) -> InjectionPoint {
    InjectionPoint {
        item: 0,
        file: file.into(),
        describe: "ConfigMap/foo".into(),
        required: false,
        condition_type: ct.into(),
        injected: None,
        errors: vec![],
        field: None,
        invalid_value: None,
        hints: vec![],
        source: None,
    }
}

#[test]
fn duplicates_name_previous_and_this_file() {
    assert!(validate_points(&[]).is_empty());
    assert!(validate_points(&[point("a", "f")]).is_empty());
    assert!(validate_points(&[point("a", "f"), point("b", "f")]).is_empty());
    let ct = "config.injection.ConfigMap.foo";
    let r = validate_points(&[
        point(ct, "file.yaml"),
        point(ct, "file2.yaml"),
        point(ct, "file3.yaml"),
    ]);
    let msgs: Vec<_> = r.iter().map(|r| r.message.as_str()).collect();
    assert_eq!(
        msgs,
        [
            r#"duplicate injection conditionType "config.injection.ConfigMap.foo" (file.yaml and file2.yaml)"#,
            r#"duplicate injection conditionType "config.injection.ConfigMap.foo" (file2.yaml and file3.yaml)"#
        ]
    );
}

#[test]
fn invalid_values_and_duplicates_in_point_order() {
    let mut bad = point("config.injection.ConfigMap.foo", "a.yaml");
    bad.invalid_value = Some("e1".into());
    let r = validate_points(&[
        point("config.injection.ConfigMap.foo", "0.yaml"),
        bad,
        point("config.injection.ConfigMap.bar", "b.yaml"),
    ]);
    let msgs: Vec<_> = r.iter().map(|r| r.message.as_str()).collect();
    assert_eq!(
        msgs,
        [
            r#"a.yaml: ConfigMap/foo has invalid "kpt.dev/config-injection" annotation value of "e1"; the accepted values are "required" or "optional""#,
            r#"duplicate injection conditionType "config.injection.ConfigMap.foo" (0.yaml and a.yaml)"#,
        ]
    );
}

#[test]
fn selectors_match_the_in_package_gvk() {
    let record = MetaRecord::new("hr.example.com/v1alpha1", "Team", "", None, &[], &[]);
    let target = record.view();
    let sel = |g: Option<&str>, v: Option<&str>, k: Option<&str>| InjectionSelector {
        group: g.map(Into::into),
        version: v.map(Into::into),
        kind: k.map(Into::into),
        name: "x".into(),
    };
    assert!(selector_applies(&sel(None, None, None), target));
    assert!(selector_applies(
        &sel(Some("hr.example.com"), Some("v1alpha1"), Some("Team")),
        target
    ));
    assert!(!selector_applies(&sel(Some(""), None, None), target));
    assert!(!selector_applies(&sel(None, Some("v1"), None), target));
    assert!(!selector_applies(
        &sel(None, None, Some("ConfigMap")),
        target
    ));
}
