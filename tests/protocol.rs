//! The ResourceList protocol through the binary: input forms, results, exit codes, and
//! byte-for-byte pass-through of everything the function does not change.

mod common;

use common::{items_section, resource_list, run, run_bytes};

/// A PackageVariant that asks for nothing: no context, pipeline or injectors.
const NOOP_PV: &str = "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: noop
spec:
  upstream: {repo: blueprints, package: base, revision: 1}
  downstream: {repo: deployments, package: base}
";

/// Items as kpt sends them, with every scalar that a careless YAML layer would change.
const TRICKY_ITEMS: &str = "apiVersion: config.kubernetes.io/v1
kind: ResourceList
items:
- apiVersion: kpt.dev/v1
  kind: Kptfile
  metadata:
    name: pkg
    annotations:
      config.kubernetes.io/local-config: \"true\"
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'Kptfile'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'Kptfile'
      internal.config.kubernetes.io/seqindent: 'compact'
      internal.config.kubernetes.io/id: '1'
      config.k8s.io/id: '1'
  info:
    description: tricky scalars
- # leading comment
  apiVersion: v1
  kind: ConfigMap
  metadata:
    name: tricky # trailing comment
    annotations:
      config.kubernetes.io/index: '0'
      config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/index: '0'
      internal.config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/id: '2'
      config.k8s.io/id: '2'
  data:
    zero-lead: \"0123\"
    yes: \"yes\"
    on: 'on'
    float-ish: \"1.0\"
    bool-ish: \"true\"
    null-ish: \"null\"
    tilde: \"~\"
    hex-ish: \"0x1F\"
    inf: \".inf\"
    empty: \"\"
    # a comment inside data
    block: |
      line one
        indented
      line three
    folded: >-
      folded
      text
    plain-multi: a plain
      scalar on two lines
- apiVersion: apps/v1
  kind: Deployment
  metadata:
    name: web
    annotations:
      config.kubernetes.io/index: '1'
      config.kubernetes.io/path: 'cm.yaml'
      internal.config.kubernetes.io/index: '1'
      internal.config.kubernetes.io/path: 'cm.yaml'
  spec:
    replicas: 3
    huge: 123456789012345678901234567890
    octal: 0o17
    hex: 0x1F
    template:
      spec:
        containers:
        - name: app
          image: \"nginx:1.25\"
          args: [\"--port\", \"8080\"]
          env: [{name: A, value: \"1\"}]
          resources: {limits: {cpu: 500m}}
        - name: sidecar
          image: busybox
          command:
            - sh
            - -c
            - |-
              echo hi
    anchors:
      base: &base {a: 1}
      copy: *base
      tagged: !!str 123
      custom: !mytag value
";

/// The smallest package a PackageVariant accepts: a root Kptfile.
const KPTFILE: &str = "apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: pkg
  annotations:
    config.kubernetes.io/path: Kptfile
";

fn with_config(base: &str, config: &str) -> String {
    let mut s = base.to_string();
    s.push_str("functionConfig:\n");
    for line in config.lines() {
        s.push_str("  ");
        s.push_str(line);
        s.push('\n');
    }
    s
}

#[test]
fn unchanged_items_pass_through_byte_for_byte() {
    let input = with_config(TRICKY_ITEMS, NOOP_PV);
    let out = run(&input);
    assert_eq!(
        out.code, 0,
        "stderr: {}\nstdout: {}",
        out.stderr, out.stdout
    );
    assert_eq!(items_section(&out.stdout), items_section(&input));
}

#[test]
fn error_results_return_items_unchanged() {
    // No functionConfig: an error, exit 1, and the items exactly as sent.
    let out = run(TRICKY_ITEMS);
    assert_eq!(out.code, 1);
    assert_eq!(items_section(&out.stdout), items_section(TRICKY_ITEMS));
    let results = &out.stdout[out.stdout.find("\nresults:").expect("results")..];
    insta::assert_snapshot!(results);
}

#[test]
fn functionconfig_is_echoed_unchanged() {
    let input = with_config(TRICKY_ITEMS, NOOP_PV);
    let out = run(&input);
    let fc = &input[input.find("functionConfig:").unwrap()..];
    assert!(out.stdout.contains(fc), "{}", out.stdout);
}

#[test]
fn v1beta1_is_accepted_and_echoed() {
    let input = resource_list(&[KPTFILE], NOOP_PV).replacen(
        "config.kubernetes.io/v1\n",
        "config.kubernetes.io/v1beta1\n",
        1,
    );
    let out = run(&input);
    assert_eq!(out.code, 0, "{}\n{}", out.stderr, out.stdout);
    assert!(out.stdout.starts_with(
        "apiVersion: config.kubernetes.io/v1beta1\nkind: ResourceList\nitems:\n- apiVersion: kpt.dev/v1\n"
    ));
}

#[test]
fn json_input_gives_block_yaml() {
    let input = r#"{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList",
 "items": [{"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a", "annotations": {"config.kubernetes.io/path": "a.yaml"}},
            "data": {"zero": "0123", "yes": "yes", "list": ["x", 1, true, null], "nested": {"k": "multi\nline\n"}}}],
 "functionConfig": {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "x"}}}"#;
    let out = run(input);
    assert_eq!(out.code, 1);
    insta::assert_snapshot!(out.stdout);
}

#[test]
fn unknown_top_level_keys_are_ignored() {
    let input = format!("foo: bar\n{}", resource_list(&[KPTFILE], NOOP_PV));
    let out = run(&input);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(!out.stdout.contains("foo"));
}

#[test]
fn unsupported_function_configs_are_errors() {
    let item = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n";
    let cases = [
        ("wrong-kind", "apiVersion: fn.kpt.dev/v1alpha1\nkind: SetNamespace\nmetadata:\n  name: x\n  namespace: ns\n  annotations:\n    config.kubernetes.io/path: fn.yaml\n"),
        ("pv-wrong-version", "apiVersion: config.porch.kpt.dev/v1alpha2\nkind: PackageVariant\nmetadata:\n  name: x\n"),
        ("pvs-wrong-version", "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariantSet\nmetadata:\n  name: x\n"),
        ("not-an-object", "just a string\n"),
    ];
    for (name, config) in cases {
        let out = run(&resource_list(&[item], config));
        assert_eq!(out.code, 1, "{name}");
        insta::assert_snapshot!(name, out.stdout);
    }
}

#[test]
fn input_that_is_not_a_resource_list_fails_on_stderr() {
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", b"".to_vec()),
        ("whitespace", b"  \n\n".to_vec()),
        ("garbage", b"{{{ not yaml".to_vec()),
        (
            "bare-list",
            b"- apiVersion: v1\n  kind: ConfigMap\n".to_vec(),
        ),
        ("scalar", b"hello\n".to_vec()),
        (
            "wrong-kind",
            b"apiVersion: v1\nkind: List\nitems: []\n".to_vec(),
        ),
        (
            "no-kind",
            b"apiVersion: config.kubernetes.io/v1\nitems: []\n".to_vec(),
        ),
        (
            "wrong-api-version",
            b"apiVersion: config.kubernetes.io/v2\nkind: ResourceList\nitems: []\n".to_vec(),
        ),
        (
            "items-not-a-list",
            b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: {a: b}\n".to_vec(),
        ),
        (
            "items-a-string",
            b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: nope\n".to_vec(),
        ),
        (
            "invalid-utf8",
            b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n# \xff\xfe\n"
                .to_vec(),
        ),
        (
            "control-char",
            b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n# \x07\n"
                .to_vec(),
        ),
        (
            "two-documents",
            b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems: []\n---\na: b\n"
                .to_vec(),
        ),
        (
            "bad-indentation",
            b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a: b\n   c: d\n"
                .to_vec(),
        ),
        (
            "unterminated-quote",
            b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a: \"b\n".to_vec(),
        ),
        (
            "duplicate-key",
            b"apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- a: b\n  a: c\n"
                .to_vec(),
        ),
    ];
    for (name, input) in cases {
        let out = run_bytes(&input);
        assert_eq!(out.code, 1, "{name}");
        assert!(out.stdout.is_empty(), "{name}: {}", out.stdout);
        assert_eq!(
            out.stderr.lines().count(),
            1,
            "{name}: one line: {}",
            out.stderr
        );
        insta::assert_snapshot!(format!("not-a-resource-list-{name}"), out.stderr);
    }
}

#[test]
fn items_that_are_not_objects_are_errors() {
    let input = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- just a scalar\n- [a, list]\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: ok\n";
    let input = with_config(input, NOOP_PV);
    let out = run(&input);
    assert_eq!(out.code, 1);
    assert_eq!(items_section(&out.stdout), items_section(&input));
    insta::assert_snapshot!(&out.stdout[out.stdout.find("\nresults:").unwrap()..]);
}

#[test]
fn billion_laughs_and_deep_nesting_are_refused_quickly() {
    let mut laughs = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: lol\n  data:\n    a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
    for i in 1..12 {
        laughs.push_str(&format!(
            "    a{i}: &a{i} [{}]\n",
            vec![format!("*a{}", i - 1); 10].join(", ")
        ));
    }
    let start = std::time::Instant::now();
    let out = run(&with_config(&laughs, NOOP_PV));
    // Aliases are kept as written, never expanded, so the output is as small as the input.
    assert!(
        out.stdout.len() < 4 * laughs.len() + 2048,
        "output grew to {}",
        out.stdout.len()
    );
    let deep = format!(
        "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- {}\n",
        "[".repeat(10_000)
    );
    let out = run(&deep);
    assert_eq!(out.code, 1);
    assert!(out.stderr.contains("nesting"), "{}", out.stderr);
    // Wall time over several runs: only a hang or an exponential blow-up fails, even on a
    // loaded machine.
    assert!(start.elapsed().as_secs() < 100);
}

#[test]
fn help_and_version() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_package-variant"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("\nHOW TO RUN\n"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_package-variant"))
        .arg("--version")
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        format!("package-variant {}", env!("CARGO_PKG_VERSION"))
    );
}

/// A successful run whose output cannot be written fails: stdout closed before the process
/// starts (`>&-`), or a reader that went away (a broken pipe). `> /dev/null` is a place to
/// write, and succeeds.
#[test]
fn output_that_cannot_be_written_exits_1() {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let input = resource_list(
        &[common::PACKAGE_CONTEXT],
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: x\ndata:\n  region: us-east1\n",
    );
    assert_eq!(run(&input).code, 0, "the control run succeeds");
    let bin = env!("CARGO_BIN_EXE_package-variant");
    let through_shell = |redirect: &str| {
        let mut child = Command::new("sh")
            .args(["-c", &format!("exec \"$0\" {redirect}"), bin])
            .stdin(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start sh");
        let _ = child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input.as_bytes());
        child.wait_with_output().expect("wait")
    };
    let closed = through_shell(">&-");
    assert_eq!(closed.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&closed.stderr).contains("stdout is closed"),
        "{}",
        String::from_utf8_lossy(&closed.stderr)
    );
    assert_eq!(through_shell("> /dev/null").status.code(), Some(0));

    let mut child = Command::new(bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start package-variant");
    drop(child.stdout.take());
    let _ = child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input.as_bytes());
    let broken = child.wait_with_output().expect("wait");
    assert_eq!(broken.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&broken.stderr).contains("cannot write stdout"));
}

/// An earlier function's `results` (a pipeline through stdin without kpt, which would strip
/// them) are kept as they came, comments included, and this run's results follow; on an error
/// too. They were dropped before.
#[test]
fn earlier_results_are_kept_and_ours_appended() {
    let earlier = "results:
# from set-labels
- message: 'earlier warning'
  severity: warning
  tags: {x: 'y'}
";
    let items = [common::KPTFILE, common::PACKAGE_CONTEXT];
    let ok = run(&format!(
        "{}{earlier}",
        resource_list(
            &items,
            &common::pv_config("  packageContext:\n    data: {a: b}\n")
        )
    ));
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    // This run's one result, its summary, follows the earlier ones.
    let results = common::results_section(&ok.stdout);
    assert!(results.starts_with(earlier), "{results}");
    assert!(
        results[earlier.len()..].starts_with(
            "- message: 'PackageVariant \"my-pv\": context set [a]; 1 item changed'\n"
        ),
        "{results}"
    );
    assert!(ok.stdout.contains("\n    a: b\n"), "{}", ok.stdout);

    let refused = run(&format!(
        "{}{earlier}",
        resource_list(
            &items,
            &common::pv_config("  packageContext:\n    data: {name: b}\n")
        )
    ));
    assert_eq!(refused.code, 1);
    let results = common::results_section(&refused.stdout);
    assert!(results.starts_with(earlier), "{results}");
    assert!(
        results[earlier.len()..].starts_with("- message: 'Invalid value: {\"name\":\"b\"}"),
        "{results}"
    );

    let scalar = run(&format!(
        "{}results: oops\n",
        resource_list(&items, &common::pv_config(""))
    ));
    assert_eq!(scalar.code, 1);
    assert_eq!(
        scalar.stderr,
        "package-variant: ResourceList results must be a list, found a scalar\n"
    );
    assert!(scalar.stdout.is_empty());
}

/// Input that ends inside the last item's tail (spaces, no line break): what the function
/// writes after the items starts its own line, so the output reads again (found by fuzzing).
#[test]
fn input_ending_in_spaces_after_the_last_item_is_written_readably() {
    for config in ["", "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: c}\n  data: {zone: a}\n"] {
        for end in [" ", "   ", "\n ", "  # note"] {
            let input = format!(
                "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n{config}items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata: {{name: x}}\n{end}"
            );
            let out = run(&input);
            assert!(out.code == 0 || out.code == 1, "{end:?}: {}", out.stderr);
            assert!(!out.stdout.is_empty(), "{end:?}: {}", out.stderr);
            let again = run(&out.stdout);
            assert!(
                !again.stdout.is_empty(),
                "{config:?} {end:?}: the output does not read again: {}\n{}",
                again.stderr,
                out.stdout
            );
            assert!(out.stdout.contains("  metadata: {name: x}\n"), "{}", out.stdout);
        }
    }
}

/// The functionConfig a run takes out of the list (so its tree is not held beside everything
/// the function builds) is written back from its text byte for byte as writing its tree did:
/// comments, indentation, blank lines, anchors inside, its place before or after `items`.
/// Forms that are not copied (JSON, flow, a tag or anchor on it) keep their tree.
#[test]
fn a_taken_function_config_is_written_back_as_its_tree_was() {
    use package_variant::krm::resource_list::{Changes, ResourceList};
    let item = "items:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: c\n";
    let copied = [
        "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data: {a: b}\n",
        "functionConfig:   # why\n    apiVersion: v1   # four spaces\n    kind: ConfigMap\n\n    # a comment\n    data:\n      a: &x b\n      c: *x\n# after\n",
        "functionConfig:\n  apiVersion: v1\n  kind: ConfigMap\n  data:\n    notes: |+\n      kept\n\n",
        "functionConfig:\n apiVersion: v1\n kind: ConfigMap\n data:\n - x\n",
    ];
    let kept = [
        "functionConfig: {apiVersion: v1, kind: ConfigMap}\n",
        "functionConfig: !!map\n  apiVersion: v1\n  kind: ConfigMap\n",
        "functionConfig: &c\n  apiVersion: v1\n  kind: ConfigMap\n",
    ];
    for (config, taken) in copied
        .iter()
        .map(|c| (c, true))
        .chain(kept.iter().map(|c| (c, false)))
    {
        for doc in [
            format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n{item}{config}"),
            format!("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\n{config}{item}"),
        ] {
            let whole = ResourceList::parse(&doc).unwrap_or_else(|e| panic!("{doc}: {e}"));
            let mut detached = ResourceList::parse(&doc).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(detached.detach_function_config().is_some(), taken, "{doc}");
            assert_eq!(detached.function_config().is_none(), taken, "{doc}");
            let none = Changes::default();
            assert_eq!(detached.emit(&none, &[]), whole.emit(&none, &[]), "{doc}");
        }
    }
    let json = r#"{"apiVersion": "config.kubernetes.io/v1", "kind": "ResourceList", "items": [], "functionConfig": {"apiVersion": "v1", "kind": "ConfigMap"}}"#;
    let mut rl = ResourceList::parse(json).unwrap_or_else(|e| panic!("{e}"));
    assert!(rl.detach_function_config().is_none());
}
