//! Messages that say the fix, each tried through the binary as a new user would meet it: a
//! closed set of values lists what it accepts and the closest one; a bare word after `--` is
//! explained; a package without a package context is told how to get one.

mod common;

use common::{pv_config, resource_list, run, KPTFILE, PACKAGE_CONTEXT};

/// The `results` of a refused run, with the line breaks YAML folds long messages at joined
/// and `\"` read as `"`.
fn errors(input: &str) -> String {
    let out = run(input);
    assert_eq!(out.code, 1, "{}", out.stdout);
    assert!(common::is_error_summary(&out.stderr), "{}", out.stderr);
    common::results_section(&out.stdout)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .replace("\\\"", "\"")
        .replace("''", "'")
}

#[test]
fn an_injection_annotation_value_gets_the_accepted_values_and_did_you_mean() {
    let point = common::INJECTION_POINT.replace(
        "kpt.dev/config-injection: required",
        "kpt.dev/config-injection: Required",
    );
    let results = errors(&resource_list(
        &[KPTFILE, PACKAGE_CONTEXT, &point],
        &pv_config(""),
    ));
    assert!(
        results.contains(
            r#"has invalid "kpt.dev/config-injection" annotation value of "Required"; the accepted values are "required" or "optional"; did you mean "required"?"#
        ),
        "{results}"
    );
}

#[test]
fn policies_get_did_you_mean() {
    let results = errors(&resource_list(
        &[KPTFILE, PACKAGE_CONTEXT],
        &pv_config("  adoptionPolicy: AdoptExisting\n  deletionPolicy: Orphan\n"),
    ));
    assert!(
        results.contains(r#"not "AdoptExisting"; did you mean "adoptExisting"?"#),
        "{results}"
    );
    assert!(
        results.contains(r#"not "Orphan"; did you mean "orphan"?"#),
        "{results}"
    );
    let set = common::pvs_config(
        "  targets:\n  - repositories: [{name: edge}]\n    template: {deletionPolicy: delet}\n",
    );
    let results = errors(&resource_list(&[common::UPSTREAM_PR], &set));
    assert!(
        results.contains(r#"not "delet"; did you mean "delete"?"#),
        "{results}"
    );
}

#[test]
fn a_selector_operator_gets_the_operators_and_did_you_mean() {
    let set = common::pvs_config(
        "  targets:\n  - repositorySelector:\n      matchExpressions: [{key: env, operator: in, values: [prod]}]\n",
    );
    let results = errors(&resource_list(&[common::UPSTREAM_PR], &set));
    assert!(
        results.contains(
            r#"the operators are "In", "NotIn", "Exists" or "DoesNotExist"; did you mean "In"?"#
        ),
        "{results}"
    );
}

/// `kpt fn eval PKG --exec package-variant -- region`: kpt makes the word the kind.
#[test]
fn a_bare_word_after_the_double_dash_is_explained() {
    // What kpt sends for `-- region tier=gold` (kpt 1.0.0-beta.56).
    let config =
        "metadata:\n  name: function-input\ndata: {tier: gold}\nkind: region\napiVersion: v1\n";
    let results = errors(&resource_list(&[KPTFILE, PACKAGE_CONTEXT], config));
    assert!(
        results.contains("kpt read \"region\" as the functionConfig's kind"),
        "{results}"
    );
    assert!(results.contains("region=VALUE"), "{results}");
}

/// The same under real kpt.
#[test]
fn a_bare_word_under_kpt() {
    let dir = std::env::temp_dir().join(format!("pv-messages-kpt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("Kptfile"),
        "apiVersion: kpt.dev/v1\nkind: Kptfile\nmetadata:\n  name: pkg\n",
    )
    .unwrap();
    let out = std::process::Command::new("kpt")
        .args(["fn", "eval"])
        .arg(&dir)
        .args([
            "--exec",
            env!("CARGO_BIN_EXE_package-variant"),
            "--",
            "region",
        ])
        .output()
        .expect(
            "kpt is not on PATH: install kpt 1.0.0-beta.56 (https://kpt.dev/installation/kpt-cli/)",
        );
    let _ = std::fs::remove_dir_all(&dir);
    let shown =
        String::from_utf8_lossy(&out.stderr).to_string() + &String::from_utf8_lossy(&out.stdout);
    assert!(!out.status.success());
    assert!(
        shown.contains("a word after -- without =VALUE names a kind"),
        "{shown}"
    );
    assert!(shown.contains("write region=VALUE"), "{shown}");
}

#[test]
fn a_missing_package_context_says_how_to_make_one() {
    let results = errors(&resource_list(
        &[KPTFILE],
        &pv_config("  packageContext:\n    data: {region: us-east1}\n"),
    ));
    assert!(results.contains("kpt pkg init makes one"), "{results}");
    assert!(
        results.contains("kpt pkg get --for-deployment"),
        "{results}"
    );
}
