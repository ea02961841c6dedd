//! kpt v1.0 as users run it (issue 51), checked two ways.
//!
//! - **kpt 1.0.0-beta.56** (on `PATH`, as in `tests/kpt_e2e.rs`): `kpt fn render` runs the
//!   package's pipeline for real; every `exec:` step goes through a recorder that keeps the
//!   ResourceList kpt sent and what the binary answered.
//! - **kpt v1.0** (not installed here): the same recorded ResourceLists, reshaped as kpt v1.0
//!   builds them, read from its source: the step's own `configPath` resource left out of the
//!   items (kptdev/kpt#4673, `excludeAndRefreshFnConfig`, c297bee13; it is taken out before the
//!   round-trip ids are set, so the functionConfig carries none) and the round-trip id spelled
//!   `internal.config.kubernetes.io/kpt-resource-id` (kptdev/kpt#4663, fe84ac7b9; older kpt:
//!   `internal.config.k8s.io/kpt-resource-id`). kpt then appends the unmodified config item
//!   after the step's output for the steps that follow.
//!
//! Each test runs the binary on both shapes and holds the answers to one another.

mod shell;

use shell::{bin_dir, copy_dir, root, sh, Scratch};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const OLD_ID: &str = "internal.config.k8s.io/kpt-resource-id";
const NEW_ID: &str = "internal.config.kubernetes.io/kpt-resource-id";

/// A package in a scratch directory whose `exec: package-variant` steps are recorded.
struct Recorded {
    _scratch: Scratch,
    pkg: PathBuf,
    records: PathBuf,
    bin: PathBuf,
}

impl Recorded {
    /// Copies `files` (name, text) or the directory `from` to a scratch package and points its
    /// Kptfile's `exec: package-variant` steps at a recorder of their input and output.
    fn new(name: &str, from: Option<&Path>, files: &[(&str, &str)]) -> Recorded {
        let scratch = Scratch::new(name);
        let dir = scratch.0.clone();
        let bin = bin_dir(&dir);
        let pkg = dir.join("pkg");
        match from {
            Some(from) => copy_dir(from, &pkg),
            None => fs::create_dir_all(&pkg).unwrap(),
        }
        for (file, text) in files {
            let path = pkg.join(file);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        let records = dir.join("records");
        fs::create_dir_all(&records).unwrap();
        let recorder = dir.join("record.sh");
        fs::write(
            &recorder,
            format!(
                "#!/bin/bash\nset -o pipefail\nn=$(ls {r} | grep -c '^in' || true)\n\
                 tee {r}/in$n.yaml | {b} \"$@\" | tee {r}/out$n.yaml\n",
                r = records.display(),
                b = bin.join("package-variant").display()
            ),
        )
        .unwrap();
        Command::new("chmod")
            .arg("+x")
            .arg(&recorder)
            .status()
            .unwrap();
        let kptfile = pkg.join("Kptfile");
        let text = fs::read_to_string(&kptfile).unwrap();
        let text = text.replace(
            "exec: package-variant",
            &format!("exec: {}", recorder.display()),
        );
        fs::write(&kptfile, text).unwrap();
        Recorded {
            _scratch: scratch,
            pkg,
            records,
            bin,
        }
    }

    /// `kpt fn render --allow-exec` of the package; panics unless it succeeds.
    fn render(&self) {
        let (code, out) = sh(
            &self.pkg,
            &self.bin,
            &format!("kpt fn render {} --allow-exec", self.pkg.display()),
        );
        assert_eq!(code, 0, "kpt fn render failed:\n{out}");
    }

    /// The `n`th recorded step: what kpt beta.56 sent, and what the binary answered.
    fn step(&self, n: usize) -> (String, String) {
        let read = |f: String| fs::read_to_string(self.records.join(f)).unwrap();
        (read(format!("in{n}.yaml")), read(format!("out{n}.yaml")))
    }

    fn steps(&self) -> usize {
        fs::read_dir(&self.records)
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with("in")
            })
            .count()
    }
}

/// A ResourceList split into its items (each item's text, `- ` first line) and the text of
/// its `functionConfig:` block (empty when none). kpt and the binary both write `items:` and
/// `functionConfig:` at the left margin, an item starting with `- `.
fn split(rl: &str) -> (Vec<String>, String) {
    let mut items: Vec<String> = Vec::new();
    let mut config = String::new();
    let mut section = "";
    for line in rl.split_inclusive('\n') {
        if !line.starts_with(' ') && !line.starts_with('-') {
            section = match line.trim_end() {
                "items:" => "items",
                "functionConfig:" => "config",
                _ => "",
            };
            continue;
        }
        match section {
            "items" if line.starts_with("- ") => items.push(line.to_string()),
            "items" => items.last_mut().expect("an item").push_str(line),
            "config" => config.push_str(line),
            _ => {}
        }
    }
    (items, config)
}

fn join(items: &[String], config: &str) -> String {
    let mut s = String::from("apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n");
    for i in items {
        s.push_str(i);
    }
    if !config.is_empty() {
        s.push_str("functionConfig:\n");
        s.push_str(config);
    }
    s
}

/// The value of annotation `key` in an item's (or a functionConfig's) text, quotes dropped.
fn annotation<'a>(item: &'a str, key: &str) -> Option<&'a str> {
    item.lines().find_map(|l| {
        let (k, v) = l.trim().split_once(": ")?;
        (k == key).then(|| v.trim_matches(['"', '\'']))
    })
}

/// Whether the item is the file `path` of the package at `package_path` (kpt's test for a
/// step's own config item: package path and file path).
fn is_file(item: &str, package_path: &str, path: &str) -> bool {
    annotation(item, "internal.config.kubernetes.io/package-path") == Some(package_path)
        && annotation(item, "internal.config.kubernetes.io/path") == Some(path)
}

/// What kpt v1.0 sends where kpt beta.56 sent `rl`: the step's own config item (`config_path`
/// of the package at `package_path`) left out, and the round-trip id renamed, on the items
/// only (the config item was taken out before the ids were set; the functionConfig copy loses
/// its id too). Returns the ResourceList and the config item left out.
fn as_v1(rl: &str, package_path: &str, config_path: Option<&str>) -> (String, Option<String>) {
    let (items, config) = split(rl);
    let mut own = None;
    let mut kept = Vec::new();
    for item in items {
        if config_path.is_some_and(|p| is_file(&item, package_path, p)) {
            own = Some(item);
        } else {
            kept.push(item.replace(OLD_ID, NEW_ID));
        }
    }
    let config: String = if own.is_some() {
        config
            .split_inclusive('\n')
            .filter(|l| !l.contains(OLD_ID))
            .collect()
    } else {
        config.replace(OLD_ID, NEW_ID)
    };
    (join(&kept, &config), own)
}

/// Runs the binary on `rl`: exit code and stdout.
fn run(bin: &Path, rl: &str) -> (i32, String) {
    let mut child = Command::new(bin.join("package-variant"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(rl.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
    )
}

/// The `results:` block of a ResourceList the binary wrote (empty when none).
fn results(rl: &str) -> String {
    rl.find("\nresults:")
        .map(|at| rl[at..].to_string())
        .unwrap_or_default()
}

fn package_path(pkg: &Path) -> String {
    pkg.display().to_string()
}

/// The step under kpt v1.0 answers what it answered under beta.56, less the config item
/// (which beta.56 got back byte-identical): the items, in order, and the results.
fn assert_same_answer(beta: (&str, &str), pkg: &Path, config_path: &str, bin: &Path) -> String {
    let (beta_in, beta_out) = beta;
    let (v1_in, own) = as_v1(beta_in, &package_path(pkg), Some(config_path));
    let own = own.expect("beta.56 sends the step's own config among the items");
    let (code, v1_out) = run(bin, &v1_in);
    assert_eq!(code, 0, "kpt v1.0 shape failed:\n{v1_out}");
    let (beta_items, _) = split(beta_out);
    assert!(
        beta_items.contains(&own),
        "beta.56: the config item comes back byte-identical"
    );
    let expected: Vec<String> = beta_items
        .into_iter()
        .filter(|i| *i != own)
        .map(|i| i.replace(OLD_ID, NEW_ID))
        .collect();
    let (v1_items, _) = split(&v1_out);
    assert_eq!(
        v1_items, expected,
        "kpt v1.0 shape: the items differ from beta.56's less the config item"
    );
    assert_eq!(results(&v1_out), results(beta_out), "results differ");
    v1_out
}

/// examples/render-pipeline: its first step's functionConfig is a PackageVariant kept in the
/// package (`configPath: variant.yaml`). Under beta.56 kpt sends that file among the items too,
/// under v1.0 it does not: both steps answer the same, and the pipeline ends with the same
/// package-context (the example's `.expected/diff.patch`, which tests/kpt_e2e.rs checks under
/// beta.56).
#[test]
fn render_pipeline_gives_the_same_result_with_and_without_its_own_config_among_the_items() {
    let r = Recorded::new(
        "kpt-v1-render",
        Some(&root().join("examples/render-pipeline")),
        &[],
    );
    r.render();
    assert_eq!(r.steps(), 2);
    let (in0, out0) = r.step(0);
    let (in1, out1) = r.step(1);
    let v1_out0 = assert_same_answer((&in0, &out0), &r.pkg, "variant.yaml", &r.bin);

    // Step 2 under v1.0: step 1's output, then the unmodified config item (kpt appends it),
    // with step 2's own functionConfig (a configMap: nothing left out).
    let (_, own) = as_v1(&in0, &package_path(&r.pkg), Some("variant.yaml"));
    let (mut items, _) = split(&v1_out0);
    items.push(own.unwrap());
    let (_, config1) = split(&in1);
    let (code, v1_out1) = run(&r.bin, &join(&items, &config1));
    assert_eq!(code, 0, "{v1_out1}");
    let sorted = |rl: &str| {
        let mut items = split(rl).0;
        items.sort();
        items
    };
    assert_eq!(sorted(&v1_out1), sorted(&out1), "step 2 differs");
    assert_eq!(results(&v1_out1), results(&out1));

    // What beta.56 wrote to disk is the example's expected result.
    let context = fs::read_to_string(r.pkg.join("package-context.yaml")).unwrap();
    for line in [
        "  tier: \"gold\"",
        "  region: us-east1",
        "  zone: us-east1-b",
    ] {
        assert!(context.contains(line), "{line:?} not in\n{context}");
    }
    assert!(!context.contains("legacy-key"), "{context}");
}

/// A package whose one step has selectors (so kpt sets round-trip ids) and a PackageVariant
/// (extension) kept in the package that fills an injection point (an item edited in place,
/// and the Kptfile's gate and condition) and adds a resource it owns (a new item, then one
/// replaced in place on the next render).
const IDS_PACKAGE: [(&str, &str); 4] = [
    (
        "Kptfile",
        "apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: ids
  annotations:
    config.kubernetes.io/local-config: \"true\"
pipeline:
  mutators:
  - exec: package-variant
    configPath: variant.yaml
    selectors:
    - kind: Kptfile
    - kind: ConfigMap
    - kind: PackageVariant
",
    ),
    (
        "variant.yaml",
        "apiVersion: fn.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: web-us-east1
  annotations:
    config.kubernetes.io/local-config: \"true\"
spec:
  upstream: {repo: blueprints, package: web, revision: 1}
  downstream: {repo: deployments, package: web-us-east1}
  injection:
  - bindingPoint: team
    directResource: {data: {chargeCode: cd-1234}}
  - directResource:
      apiVersion: v1
      kind: ConfigMap
      metadata: {name: web-flags}
      data: {canary: \"false\"}
",
    ),
    (
        "team.yaml",
        "apiVersion: v1
kind: ConfigMap
metadata:
  name: team
  annotations:
    kpt.dev/config-injection: required
data:
  chargeCode: placeholder
",
    ),
    (
        "deployment.yaml",
        "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
",
    ),
];

/// The `metadata.name` of an item's text.
fn name_of(item: &str) -> &str {
    item.lines()
        .find_map(|l| l.strip_prefix("    name: "))
        .unwrap_or("")
}

/// kpt's merge rule (`MergeWithInput`) held against one step: every item the binary kept,
/// edited or replaced carries its input id under `key`, exactly; a new item carries no id under
/// either spelling and has `internal.config.kubernetes.io/path`. Returns the names of the new
/// items.
fn check_ids(input: &str, output: &str, key: &str) -> Vec<String> {
    let (ins, _) = split(input);
    let (outs, _) = split(output);
    let mut ids: Vec<(String, String)> = Vec::new();
    for i in &ins {
        let id = annotation(i, key).unwrap_or_else(|| panic!("no {key} on input item\n{i}"));
        ids.push((name_of(i).to_string(), id.to_string()));
    }
    let mut new = Vec::new();
    for o in &outs {
        match annotation(o, key) {
            Some(id) => {
                let name = name_of(o);
                assert!(
                    ids.iter().any(|(n, i)| n == name && i == id),
                    "{name} came back with id {id}, not its own"
                );
            }
            None => {
                for k in [OLD_ID, NEW_ID] {
                    assert!(annotation(o, k).is_none(), "new item with {k}:\n{o}");
                }
                assert!(
                    annotation(o, "internal.config.kubernetes.io/path").is_some(),
                    "new item without a path:\n{o}"
                );
                new.push(name_of(o).to_string());
            }
        }
    }
    for (name, id) in &ids {
        assert!(
            outs.iter()
                .any(|o| name_of(o) == name && annotation(o, key) == Some(id)),
            "{name} (id {id}) lost its id or was dropped:\n{output}"
        );
    }
    new
}

/// The item named `name` of a ResourceList.
fn item<'a>(items: &'a [String], name: &str) -> &'a str {
    items
        .iter()
        .find(|i| name_of(i) == name)
        .unwrap_or_else(|| panic!("no item {name}"))
}

/// kpt merges a step's output back by its round-trip id (kptdev/kpt `MergeWithInput`): the
/// Kptfile and the injected ConfigMap (edited in place), and the owned ConfigMap replaced on
/// the second render, keep their id under either spelling; the owned ConfigMap added on the
/// first render has none and a path. Then what kpt wrote to disk is the variant's.
#[test]
fn round_trip_ids_stay_on_every_item_kept_or_edited_under_both_spellings() {
    let r = Recorded::new("kpt-v1-ids", None, &IDS_PACKAGE);
    r.render();
    let variant = r.pkg.join("variant.yaml");
    let text = fs::read_to_string(&variant).unwrap();
    fs::write(
        &variant,
        text.replace("canary: \"false\"", "canary: \"true\""),
    )
    .unwrap();
    r.render();
    assert_eq!(r.steps(), 2);
    let pkg = package_path(&r.pkg);
    for n in 0..2 {
        let (beta_in, beta_out) = r.step(n);
        let new = check_ids(&beta_in, &beta_out, OLD_ID);
        let (v1_in, _) = as_v1(&beta_in, &pkg, Some("variant.yaml"));
        let (code, v1_out) = run(&r.bin, &v1_in);
        assert_eq!(code, 0, "{v1_out}");
        assert_eq!(check_ids(&v1_in, &v1_out, NEW_ID), new);
        assert_same_answer((&beta_in, &beta_out), &r.pkg, "variant.yaml", &r.bin);
        let (outs, _) = split(&beta_out);
        let (ins, _) = split(&beta_in);
        if n == 0 {
            assert_eq!(
                new,
                ["web-flags"],
                "the first render adds the owned ConfigMap"
            );
            assert_ne!(
                item(&ins, "ids"),
                item(&outs, "ids"),
                "the Kptfile is edited"
            );
            assert_ne!(item(&ins, "team"), item(&outs, "team"), "team is injected");
        } else {
            assert!(new.is_empty(), "the second render adds nothing: {new:?}");
            assert!(item(&ins, "web-flags").contains("canary: \"false\""));
            assert!(
                item(&outs, "web-flags").contains("canary: \"true\""),
                "the owned ConfigMap is replaced"
            );
        }
    }
    let owned = fs::read_to_string(r.pkg.join("injected/configmap-web-flags.yaml")).unwrap();
    assert!(owned.contains("canary: \"true\""), "{owned}");
    let team = fs::read_to_string(r.pkg.join("team.yaml")).unwrap();
    assert!(team.contains("chargeCode: cd-1234"), "{team}");
}

/// Conditions kpt v1.0 compiles (its examples and each extension it enables: two-variable
/// comprehensions, strings v2, sets, lists v3, optional types, cross-type numeric comparisons).
const WHEN_ACCEPTED: &[&str] = &[
    "resources.exists(r, r.kind == 'ConfigMap' && r.metadata.name == 'my-config')",
    "resources.filter(r, r.kind == 'Deployment').size() > 0",
    "resources.all(r, r.kind != 'Secret')",
    "resources.exists(r, has(r.metadata.labels) && r.metadata.labels.app == 'web')",
    "resources.all(i, r, i >= 0 && r.kind != '')",
    "resources.existsOne(i, r, r.kind == 'Kptfile')",
    "resources.transformList(i, r, i > 0, r.kind).distinct().size() == 1",
    "resources.transformMap(i, r, r.kind).size() >= 0",
    "resources.exists(r, r.metadata.name.lowerAscii().startsWith('web'))",
    "resources.map(r, r.metadata.name).join(',') != ''",
    "'a,b'.split(',').size() == 2 && 'abc'.substring(1) == 'bc'",
    "'%s'.format(['a']) == 'a' && strings.quote('a') != ''",
    "sets.contains(resources.map(r, r.kind), ['Deployment'])",
    "resources.sortBy(r, r.metadata.name).size() > 0",
    "lists.range(3).size() == 3 && [[1], [2]].flatten().size() == 2 && [3, 1].sort()[0] == 1",
    "resources[?0].hasValue()",
    "resources[0].?metadata.?name.orValue('') == 'web'",
    "resources.exists(r, r.metadata.?labels.?app == optional.of('web'))",
    "resources.size() < 2.5 && resources.size() >= 1u",
];

/// Conditions kpt v1.0 refuses at render, and the words of cel-go's error.
const WHEN_REFUSED: &[(&str, &str)] = &[
    (
        "resources[0].metadata.name",
        "CEL expression must return a boolean, got dyn",
    ),
    (
        "resources.size()",
        "CEL expression must return a boolean, got int",
    ),
    ("repoDefault == ''", "undeclared reference to 'repoDefault'"),
    (
        "'abc'.reverse() == 'cba'",
        "found no matching overload for 'reverse' applied to 'string.()'",
    ),
    ("math.greatest(1, 2) == 2", "undeclared reference to 'math'"),
    (
        "[1, 'a'].size() > 0",
        "expected type 'int' but found 'string'",
    ),
    ("1 == 1.0", "found no matching overload for '_==_'"),
    (
        "resources.exists(r, r.kind.matches('['))",
        "invalid regular expression",
    ),
    (
        "resources.all(i, i, true)",
        "all() second variable name must be different from the first variable name",
    ),
    ("resources.exists(r, ", "Syntax error"),
];

/// A PackageVariant kept in the package (`variant.yaml`) adding the pipeline step `step` (its
/// fields, one a line, no indentation), with the Kptfile's own top-level fields
/// `kptfile_extra`, as each kpt version sends them: beta.56 with the file among the items (and
/// the old id), v1.0 without.
fn step_lists(step: &str, kptfile_extra: &str) -> [String; 2] {
    let step: String = step
        .lines()
        .enumerate()
        .map(|(n, l)| format!("    {}{l}\n", if n == 0 { "- " } else { "  " }))
        .collect();
    let pv = format!(
        "apiVersion: config.porch.kpt.dev/v1alpha1
kind: PackageVariant
metadata:
  name: web
  annotations:
    config.kubernetes.io/local-config: \"true\"
    config.kubernetes.io/path: 'variant.yaml'
    internal.config.kubernetes.io/path: 'variant.yaml'
    {OLD_ID}: '1'
spec:
  upstream: {{repo: blueprints, package: web, revision: 1}}
  downstream: {{repo: deployments, package: web}}
  pipeline:
    mutators:
{step}"
    );
    let kptfile = format!(
        "apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: web
  annotations:
    config.kubernetes.io/path: 'Kptfile'
    internal.config.kubernetes.io/path: 'Kptfile'
    {OLD_ID}: '0'
{kptfile_extra}"
    );
    let indent = |t: &str| -> String {
        let mut out = String::new();
        for (n, l) in t.lines().enumerate() {
            out.push_str(if n == 0 { "- " } else { "  " });
            out.push_str(l);
            out.push('\n');
        }
        out
    };
    let config: String = pv.lines().map(|l| format!("  {l}\n")).collect();
    let beta = join(&[indent(&kptfile), indent(&pv)], &config);
    let v1_items = [indent(&kptfile).replace(OLD_ID, NEW_ID)];
    let v1_config: String = config
        .lines()
        .filter(|l| !l.contains(OLD_ID))
        .map(|l| format!("{l}\n"))
        .collect();
    [beta, join(&v1_items, &v1_config)]
}

fn when_lists(when: &str) -> [String; 2] {
    step_lists(&format!("image: set-labels\nwhen: {when:?}"), "")
}

/// A step's `when` is checked as kpt v1.0 compiles it (kptdev/kpt#4469): what kpt accepts
/// passes and is written to the Kptfile, what it refuses is an error on the field with cel-go's
/// words and nothing changes, under both ResourceList shapes.
#[test]
fn when_is_checked_as_kpt_compiles_it_under_both_shapes() {
    let scratch = Scratch::new("kpt-v1-when");
    let bin = bin_dir(&scratch.0);
    for when in WHEN_ACCEPTED {
        for rl in when_lists(when) {
            let (code, out) = run(&bin, &rl);
            assert_eq!(code, 0, "{when}: {}", results(&out));
            let (items, _) = split(&out);
            assert!(
                items[0].contains("when:"),
                "{when}: the step is added to the Kptfile\n{}",
                items[0]
            );
        }
    }
    for (when, words) in WHEN_REFUSED {
        for rl in when_lists(when) {
            let (code, out) = run(&bin, &rl);
            assert_eq!(code, 1, "{when} passed");
            let r = results(&out);
            assert!(
                r.contains("path: spec.pipeline.mutators[0].when"),
                "{when}: {r}"
            );
            assert!(r.contains(words), "{when}: {words:?} not in {r}");
            assert_eq!(split(&out).0, split(&rl).0, "{when}: nothing changes");
        }
    }
}

/// Steps a variant adds that kpt v1.0.1 reads (kptdev/kpt#4743's `resourceFileRegexp` in
/// `selectors` and `exclude`, kept as written; a `configPath` naming the variant's own file,
/// which kpt v1.0 leaves out of the items), under both shapes.
const STEPS_ACCEPTED: &[&str] = &[
    "image: set-labels\nselectors:\n- kind: Deployment\n  resourceFileRegexp: \"deploy.*[.]yaml\"\nexclude:\n- resourceFileRegexp: \"^sub/\"",
    "exec: package-variant\nconfigPath: variant.yaml",
    "image: ghcr.io/kptdev/krm-functions-catalog/set-labels:v0.2.0@sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
];

/// Steps kpt v1.0.1 refuses when it reads the Kptfile (validation.go at 00a08c1a), the field
/// and the words of the error.
const STEPS_REFUSED: &[(&str, &str, &str)] = &[
    (
        "image: set-labels\nselectors:\n- resourceFileRegexp: \"(\"",
        "spec.pipeline.mutators[0].selectors[0].resourceFileRegexp",
        "invalid regular expression",
    ),
    (
        "image: set-labels\nexclude:\n- kind: Secret\n- resourceFileRegexp: \"a**\"",
        "spec.pipeline.mutators[0].exclude[1].resourceFileRegexp",
        "invalid regular expression",
    ),
    (
        "name: no-executor\nconfigMap: {a: b}",
        "spec.pipeline.mutators[0]",
        "gives neither image nor exec",
    ),
    (
        "image: set-labels\nexec: set-labels",
        "spec.pipeline.mutators[0]",
        "gives both image and exec",
    ),
    (
        "image: Set-Labels:v1",
        "spec.pipeline.mutators[0].image",
        "repository name must be lowercase",
    ),
    (
        "image: set-labels:v0.1alog/set-labels:v0.1",
        "spec.pipeline.mutators[0].image",
        "invalid reference format",
    ),
    (
        "image: set-labels\nconfigPath: ../outside.yaml",
        "spec.pipeline.mutators[0].configPath",
        "path must not be outside the package",
    ),
    (
        "image: set-labels\nconfigPath: missing.yaml",
        "pipeline.mutators[0].configPath",
        "not a file of the package",
    ),
];

/// kpt v1.0.1 validates every Kptfile it reads (kptdev/kpt#4742, #4750): each step a variant
/// adds passes that validation or is refused on its field (nothing changes), the same with and
/// without the variant's own file among the items; a `resourceFileRegexp` is kept as written.
#[test]
fn every_kptfile_written_passes_kpt_v1_0_1_validation_under_both_shapes() {
    let scratch = Scratch::new("kpt-v1-kptfile");
    let bin = bin_dir(&scratch.0);
    for step in STEPS_ACCEPTED {
        for rl in step_lists(step, "") {
            let (code, out) = run(&bin, &rl);
            assert_eq!(code, 0, "{step}: {}", results(&out));
            let kptfile = &split(&out).0[0];
            for line in step.lines() {
                let line = line.trim_start_matches("- ").trim();
                let (key, value) = line.split_once(':').unwrap();
                for part in [key, value.trim().trim_matches('"')] {
                    assert!(
                        kptfile.contains(part),
                        "{step}: {part:?} not kept in\n{kptfile}"
                    );
                }
            }
        }
    }
    for (step, field, words) in STEPS_REFUSED {
        for rl in step_lists(step, "") {
            let (code, out) = run(&bin, &rl);
            assert_eq!(code, 1, "{step} passed:\n{out}");
            let r = results(&out);
            assert!(r.contains(&format!("path: {field}\n")), "{step}: {r}");
            assert!(r.contains(words), "{step}: {words:?} not in {r}");
            assert_eq!(split(&out).0, split(&rl).0, "{step}: nothing changes");
        }
    }
    // What the run leaves as it found it and kpt v1.0.1 refuses is a warning on the field.
    let odd = "upstream:\n  type: git\ninventory:\n  name: inv\n";
    for rl in step_lists("image: set-labels", odd) {
        let (code, out) = run(&bin, &rl);
        assert_eq!(code, 0, "{}", results(&out));
        let r = results(&out);
        for (field, words) in [
            ("upstream.git", "must be set when upstream.type is \"git\""),
            ("inventory", "missing: `namespace`, `inventoryID`"),
        ] {
            assert!(r.contains(&format!("path: {field}\n")), "{field}: {r}");
            assert!(r.contains(words), "{words:?} not in {r}");
        }
        assert!(r.contains("severity: warning"), "{r}");
    }
}

/// A PackageVariantSet kept in the package (`configPath: set.yaml`), with its upstream
/// PackageRevision as a package file: the first render creates the variants as new files, the
/// second finds them; each step answers the same with and without `set.yaml` among the items.
const SET_PACKAGE: [(&str, &str); 3] = [
    (
        "Kptfile",
        "apiVersion: kpt.dev/v1
kind: Kptfile
metadata:
  name: fleet
  annotations:
    config.kubernetes.io/local-config: \"true\"
pipeline:
  mutators:
  - exec: package-variant
    configPath: set.yaml
",
    ),
    (
        "set.yaml",
        "apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: web-fleet
  annotations:
    config.kubernetes.io/local-config: \"true\"
spec:
  upstream: {repo: blueprints, package: web, revision: 1}
  targets:
  - repositories:
    - name: edge1
    - name: edge2
",
    ),
    (
        "upstream.yaml",
        "apiVersion: porch.kpt.dev/v1alpha1
kind: PackageRevision
metadata:
  name: blueprints.web.v1
  annotations:
    config.kubernetes.io/local-config: \"true\"
spec:
  repository: blueprints
  packageName: web
  revision: 1
  lifecycle: Published
",
    ),
];

#[test]
fn a_set_run_from_the_package_pipeline_gives_the_same_result_with_and_without_its_own_config() {
    let r = Recorded::new("kpt-v1-set", None, &SET_PACKAGE);
    r.render();
    r.render();
    assert_eq!(r.steps(), 2);
    for n in 0..2 {
        let (beta_in, beta_out) = r.step(n);
        let out = assert_same_answer((&beta_in, &beta_out), &r.pkg, "set.yaml", &r.bin);
        let variants = split(&out)
            .0
            .iter()
            .filter(|i| i.contains("kind: PackageVariant\n"))
            .count();
        assert_eq!(variants, 2, "step {n}: {out}");
    }
    for site in ["edge1", "edge2"] {
        assert!(r
            .pkg
            .join(format!("packagevariants/web-fleet-{site}-web.yaml"))
            .exists());
    }
}
