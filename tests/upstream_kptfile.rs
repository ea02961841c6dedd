//! kpt's render status in the Kptfile (issue 31 item 4): `status.renderStatus`, the `Rendered`
//! condition and the `kpt.dev/save-on-render-failure` annotation (kptdev/kpt
//! `api/kptfile/v1/types.go`) pass through unchanged, byte for byte, when the function adds
//! its own readiness gate and condition beside them.

mod common;

const KPTFILE: &str = "apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
  annotations:
    config.kubernetes.io/path: Kptfile
    kpt.dev/save-on-render-failure: \"true\"
info:
  readinessGates:
  - conditionType: Rendered
status:
  conditions:
  - type: Rendered
    status: \"False\"
    reason: RenderFailed
    message: 'pipeline.mutators[0] (set-labels): exit code 1'
  renderStatus:
    mutationSteps:
    - name: labels
      image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0
      exitCode: 1
      stderr: |
        boom
      errorResults:
      - message: bad label
        severity: error
    validationSteps: []
    errorSummary: 'pipeline.mutators[0]: exit code 1'
";

const IN_CLUSTER: &str = "apiVersion: v1
kind: ConfigMap
metadata:
  name: endpoints
  namespace: default
  annotations:
    config.porch.kpt.dev/in-cluster: \"true\"
data:
  db: real
";

#[test]
fn render_status_passes_through_beside_new_gates_and_conditions() {
    let config = common::pv_config("  injectors:\n  - name: endpoints\n");
    let out = common::run(&common::resource_list(
        &[KPTFILE, common::INJECTION_POINT, IN_CLUSTER],
        &config,
    ));
    assert_eq!(out.code, 0, "{}{}", out.stdout, out.stderr);
    let items = common::items_section(&out.stdout);
    // The function's gate and condition were added...
    assert!(items.contains("  - conditionType: Rendered\n    - conditionType: config.injection.ConfigMap.endpoints\n"), "{items}");
    assert!(items.contains("      reason: ConfigInjected\n"), "{items}");
    // ...and kpt's parts are as they were, each line in place.
    for kept in [
        "      kpt.dev/save-on-render-failure: \"true\"\n",
        "    - type: Rendered\n      status: \"False\"\n      reason: RenderFailed\n      message: 'pipeline.mutators[0] (set-labels): exit code 1'\n",
        "    renderStatus:\n      mutationSteps:\n      - name: labels\n        image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0\n        exitCode: 1\n        stderr: |\n          boom\n        errorResults:\n        - message: bad label\n          severity: error\n      validationSteps: []\n      errorSummary: 'pipeline.mutators[0]: exit code 1'\n",
    ] {
        assert!(items.contains(kept), "{kept:?} not kept in {items}");
    }
}
