//! Benchmark workloads, generated in code so no large file is ever committed.
//!
//! - W1: a PackageVariant over a package of `items` resources (Deployments, Services and
//!   ConfigMaps in `apps/app-NNNNN.yaml`, three documents a file) written the way kpt sends
//!   them: comments, quoted scalars, block scalars, flow maps, the path/index/id annotations.
//!   The root Kptfile and `package-context.yaml` come first; `points` of the ConfigMaps are
//!   required injection points, and `in_cluster` in-cluster ConfigMaps (annotated
//!   `config.porch.kpt.dev/in-cluster: "true"`, no path) follow the package. The PackageVariant
//!   sets package-context data, prepends one pipeline function and has one injector per
//!   in-cluster object.
//! - W2: a PackageVariantSet over `repositories` Repositories (labels env/region/site), a
//!   repositorySelector with matchExpressions, a template with six CEL expressions, `owned`
//!   existing PackageVariants of the set (nine in ten still wanted), and the upstream
//!   PackageRevision.
//! - W3: W1's shape at 20 resources, no injection.
//!
//! Everything is deterministic: the same parameters give the same bytes.

#![allow(dead_code)]

use std::fmt::Write as _;

/// W1 parameters.
#[derive(Debug, Clone, Copy)]
pub struct W1 {
    /// Package resources, Kptfile and package context included.
    pub items: usize,
    /// Required injection points (ConfigMaps of the package).
    pub points: usize,
    /// In-cluster ConfigMaps, one injector each.
    pub in_cluster: usize,
}

impl W1 {
    /// The issue's shape: 100 injection points and 100 in-cluster objects (fewer when the
    /// package has fewer ConfigMaps).
    pub fn with_items(items: usize) -> W1 {
        let configmaps = items.saturating_sub(2) / 3;
        W1 {
            items,
            points: 100.min(configmaps),
            in_cluster: 100.min(configmaps.max(1)),
        }
    }
}

const HEADER: &str = "apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n";

fn kpt_annotations(out: &mut String, indent: &str, path: &str, index: usize, id: usize) {
    let _ = write!(
        out,
        "{indent}config.kubernetes.io/index: '{index}'\n\
         {indent}config.kubernetes.io/path: '{path}'\n\
         {indent}internal.config.kubernetes.io/index: '{index}'\n\
         {indent}internal.config.kubernetes.io/path: '{path}'\n\
         {indent}internal.config.kubernetes.io/id: '{id}'\n\
         {indent}config.k8s.io/id: '{id}'\n"
    );
}

fn kptfile(out: &mut String, name: &str) {
    out.push_str("- apiVersion: kpt.dev/v1\n  kind: Kptfile\n  metadata:\n");
    let _ = writeln!(out, "    name: {name}");
    out.push_str("    annotations:\n      config.kubernetes.io/local-config: \"true\"\n");
    kpt_annotations(out, "      ", "Kptfile", 0, 1);
    out.push_str(
        "  info:\n    description: generated benchmark package # issue 5\n  \
         pipeline:\n    mutators:\n    - image: gcr.io/kpt-fn/set-namespace:v0.4.1\n      \
         configMap:\n        namespace: team-a\n",
    );
}

fn package_context(out: &mut String, name: &str) {
    out.push_str("- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: kptfile.kpt.dev\n");
    out.push_str("    annotations:\n      config.kubernetes.io/local-config: \"true\"\n");
    kpt_annotations(out, "      ", "package-context.yaml", 0, 2);
    let _ = writeln!(out, "  data:\n    name: {name}");
}

fn deployment(out: &mut String, app: usize, path: &str, id: usize) {
    let _ = write!(
        out,
        "- # Deployment of app-{app:05}: the service's pods\n  \
         apiVersion: apps/v1\n  kind: Deployment\n  metadata:\n    \
         name: app-{app:05} # one per app\n    namespace: team-a\n    \
         labels: {{app: app-{app:05}, tier: \"backend\"}}\n    annotations:\n"
    );
    kpt_annotations(out, "      ", path, 0, id);
    let _ = write!(
        out,
        "  spec:\n    replicas: 3\n    selector:\n      matchLabels: {{app: app-{app:05}}}\n    \
         template:\n      metadata:\n        labels: {{app: app-{app:05}}}\n      spec:\n        \
         containers:\n        - name: app\n          \
         image: \"registry.example.com/team-a/app-{app:05}:1.{}.0\"\n          \
         args: [\"--port=8080\", '--log-level=info']\n          env:\n          \
         - name: MODE\n            value: 'production' # quoted on purpose\n          \
         ports:\n          \
         - containerPort: 8080\n",
        app % 17
    );
}

fn service(out: &mut String, app: usize, path: &str, id: usize) {
    let _ = write!(
        out,
        "- apiVersion: v1\n  kind: Service\n  metadata:\n    name: app-{app:05}\n    \
         namespace: team-a\n    annotations:\n"
    );
    kpt_annotations(out, "      ", path, 1, id);
    let _ = write!(
        out,
        "  spec:\n    selector: {{app: app-{app:05}}}\n    ports:\n    \
         - port: 80 # public\n      targetPort: 8080\n      protocol: \"TCP\"\n"
    );
}

fn config_map(out: &mut String, app: usize, path: &str, id: usize, point: bool) {
    let _ = write!(
        out,
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: app-{app:05}-config\n    \
         namespace: team-a\n    annotations:\n"
    );
    if point {
        out.push_str("      kpt.dev/config-injection: required\n");
    }
    kpt_annotations(out, "      ", path, 2, id);
    let _ = write!(
        out,
        "  data:\n    LOG_LEVEL: \"info\"\n    TIMEOUT: '30s'\n    config.yaml: |\n      \
         # settings of app-{app:05}\n      server:\n        port: 8080\n        \
         workers: {}\n",
        app % 8 + 1
    );
}

fn in_cluster_config_map(out: &mut String, i: usize) {
    let _ = write!(
        out,
        "- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: cluster-config-{i:03}\n    \
         namespace: default\n    annotations:\n      \
         config.porch.kpt.dev/in-cluster: \"true\"\n  \
         data:\n    LOG_LEVEL: debug\n    TIMEOUT: 60s\n    cluster: c-{i:03}\n"
    );
}

/// The PackageVariant of W1 (and W3): context data, one prepended function, injectors.
pub fn w1_package_variant(in_cluster: usize) -> String {
    let mut out = String::from(
        "apiVersion: config.porch.kpt.dev/v1alpha1\nkind: PackageVariant\nmetadata:\n  \
         name: bench-pv\n  namespace: default\nspec:\n  \
         upstream: {repo: catalog, package: base, revision: 3}\n  \
         downstream: {repo: site-001, package: base}\n  packageContext:\n    data:\n",
    );
    for (k, v) in [
        ("region", "us-east1"),
        ("env", "prod"),
        ("site", "s-001"),
        ("cluster", "c-001"),
        ("tier", "gold"),
    ] {
        let _ = writeln!(out, "      {k}: {v}");
    }
    out.push_str(
        "  pipeline:\n    mutators:\n    - image: gcr.io/kpt-fn/set-labels:v0.2.0\n      \
         configMap:\n        env: prod\n",
    );
    if in_cluster > 0 {
        out.push_str("  injectors:\n");
        for i in 0..in_cluster {
            let _ = writeln!(out, "  - kind: ConfigMap\n    name: cluster-config-{i:03}");
        }
    }
    out
}

/// Indents `text` by `n` spaces (every non-empty line).
fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines()
        .map(|l| {
            if l.is_empty() {
                "\n".to_string()
            } else {
                format!("{pad}{l}\n")
            }
        })
        .collect()
}

/// The W1 ResourceList.
pub fn w1(p: W1) -> String {
    let mut out = String::with_capacity(p.items * 700 + 4096);
    out.push_str(HEADER);
    kptfile(&mut out, "bench-pkg");
    package_context(&mut out, "bench-pkg");
    let apps = p.items.saturating_sub(2).div_ceil(3);
    // Spread the points over the ConfigMaps.
    let every = apps.checked_div(p.points).map_or(usize::MAX, |e| e.max(1));
    let mut written = 2;
    let mut points = 0;
    for app in 0..apps {
        let path = format!("apps/app-{app:05}.yaml");
        let id = 3 + app * 3;
        for doc in 0..3 {
            if written == p.items {
                break;
            }
            match doc {
                0 => deployment(&mut out, app, &path, id),
                1 => service(&mut out, app, &path, id + 1),
                _ => {
                    let point = points < p.points && app % every == 0;
                    points += usize::from(point);
                    config_map(&mut out, app, &path, id + 2, point);
                }
            }
            written += 1;
        }
    }
    for i in 0..p.in_cluster {
        in_cluster_config_map(&mut out, i);
    }
    out.push_str("functionConfig:\n");
    out.push_str(&indent(&w1_package_variant(p.in_cluster), 2));
    out
}

/// W1-floor: the same package in the state the PackageVariant leaves it in, so the same
/// PackageVariant has nothing left to do. `w1_output` is the function's output on [`w1`]`(p)`;
/// its items are kept and the in-cluster objects (which the function does not write back) are
/// appended again, then the same functionConfig.
pub fn w1_floor(w1_output: &str, p: W1) -> String {
    let items_end = w1_output
        .find("\nfunctionConfig:")
        .or_else(|| w1_output.find("\nresults:"))
        .map_or(w1_output.len(), |i| i + 1);
    let mut out = String::with_capacity(w1_output.len() + p.in_cluster * 200 + 4096);
    out.push_str(&w1_output[..items_end]);
    for i in 0..p.in_cluster {
        in_cluster_config_map(&mut out, i);
    }
    out.push_str("functionConfig:\n");
    out.push_str(&indent(&w1_package_variant(p.in_cluster), 2));
    out
}

/// W3: a 20-resource package and its PackageVariant (no injection).
pub fn w3() -> String {
    w1(W1 {
        items: 20,
        points: 0,
        in_cluster: 0,
    })
}

/// W2 parameters.
#[derive(Debug, Clone, Copy)]
pub struct W2 {
    pub repositories: usize,
    /// Existing PackageVariants owned by the set.
    pub owned: usize,
}

impl W2 {
    /// The issue's shape: 1,000 owned PackageVariants (one in ten of the repositories when
    /// there are fewer than 10,000).
    pub fn with_repositories(repositories: usize) -> W2 {
        W2 {
            repositories,
            owned: 1000.min(repositories / 10),
        }
    }
}

const ENVS: [&str; 3] = ["prod", "staging", "dev"];
const REGIONS: [&str; 7] = [
    "us-east1",
    "us-west1",
    "europe-west1",
    "europe-north1",
    "asia-east1",
    "asia-south1",
    "southamerica-east1",
];

/// The PackageVariantSet of W2: six CEL expressions (packageExpr, a label, an annotation, a
/// context data value, an injector nameExpr, a mutator configMap value).
pub fn w2_package_variant_set() -> String {
    r#"apiVersion: config.porch.kpt.dev/v1alpha2
kind: PackageVariantSet
metadata:
  name: fleet
  namespace: default
  uid: 5d1c7a4e-0000-4000-8000-000000000001
spec:
  upstream:
    repo: catalog
    package: base
    revision: 3
  targets:
  - repositorySelector:
      matchExpressions:
      - key: env
        operator: In
        values: [prod, staging]
      - key: region
        operator: Exists
    template:
      downstream:
        packageExpr: "'base-' + target.labels['region']"
      labelExprs:
      - key: site
        valueExpr: "repository.labels['site']"
      annotationExprs:
      - key: fleet.example.com/upstream
        valueExpr: "upstream.name + '@' + target.labels['env']"
      packageContext:
        data:
          team: platform
        dataExprs:
        - key: region
          valueExpr: "target.labels['region']"
      injectors:
      - kind: ConfigMap
        nameExpr: "repository.name + '-config'"
      pipeline:
        mutators:
        - image: gcr.io/kpt-fn/set-labels:v0.2.0
          configMapExprs:
          - key: env
            valueExpr: "target.labels.env"
"#
    .to_string()
}

fn repository(out: &mut String, i: usize) {
    let env = ENVS[i % 3];
    let region = REGIONS[i % REGIONS.len()];
    let _ = write!(
        out,
        "- apiVersion: config.porch.kpt.dev/v1alpha1\n  kind: Repository\n  metadata:\n    \
         name: site-{i:05}\n    namespace: default\n    labels:\n      env: {env}\n      \
         region: {region}\n      site: s{i:05}\n  spec:\n    type: git\n    \
         deployment: true\n    git:\n      repo: https://git.example.com/fleet/site-{i:05}.git\n      \
         branch: main\n      directory: /\n"
    );
}

/// An owned PackageVariant of the set on repository `site`, as an older render left it.
fn owned_variant(out: &mut String, site: usize) {
    let region = REGIONS[site % REGIONS.len()];
    let name = format!("fleet-site-{site:05}-base-{region}");
    let _ = write!(
        out,
        "- apiVersion: config.porch.kpt.dev/v1alpha1\n  kind: PackageVariant\n  metadata:\n    \
         name: {name}\n    namespace: default\n    labels:\n      \
         config.porch.kpt.dev/packagevariantset: 5d1c7a4e-0000-4000-8000-000000000001\n    \
         annotations:\n      config.kubernetes.io/path: 'packagevariants/{name}.yaml'\n      \
         internal.config.kubernetes.io/path: 'packagevariants/{name}.yaml'\n    \
         finalizers:\n    - config.porch.kpt.dev/packagevariants\n  spec:\n    \
         upstream: {{repo: catalog, package: base, revision: 2}}\n    \
         downstream: {{repo: site-{site:05}, package: base-{region}}}\n"
    );
}

/// W2 with the extension's kind and a rollout (waves by region, a quarter per run, Ready
/// required): W2's existing variants are all at an older revision, so the rollout decides.
pub fn w2_rollout(p: W2) -> String {
    let mut out = w2(p).replacen(
        "\n  apiVersion: config.porch.kpt.dev/v1alpha2\n",
        "\n  apiVersion: fn.kpt.dev/v1alpha1\n",
        1,
    );
    out.push_str(
        "    rollout:\n      maxUpgrades: 25%\n      waveExpr: \"target.labels['region']\"\n      requireReady: true\n",
    );
    out
}

/// W2 following a floating tag: the extension's set (`fn.kpt.dev/v1alpha1`) with
/// `upstream.tag: stable` instead of `revision: 3`, and revisions 1 to 3 of the upstream, the
/// tag on 3 (the variants come out as W2's, plus the tag annotation).
pub fn w2_tagged(p: W2) -> String {
    let set = w2_package_variant_set()
        .replacen(
            "apiVersion: config.porch.kpt.dev/v1alpha2",
            "apiVersion: fn.kpt.dev/v1alpha1",
            1,
        )
        .replacen("    revision: 3\n", "    tag: stable\n", 1);
    let mut out = w2(p);
    let config = out.find("functionConfig:\n").unwrap_or(out.len());
    out.truncate(config);
    let upstream =
        "- apiVersion: porch.kpt.dev/v1alpha1\n  kind: PackageRevision\n  metadata:\n    \
         name: catalog.base.v3\n    namespace: default\n";
    let tagged = format!(
        "- apiVersion: porch.kpt.dev/v1alpha1\n  kind: PackageRevision\n  metadata:\n    \
         name: catalog.base.v1\n    namespace: default\n  spec:\n    packageName: base\n    \
         repository: catalog\n    revision: 1\n    workspaceName: v1\n    lifecycle: Published\n\
         - apiVersion: porch.kpt.dev/v1alpha1\n  kind: PackageRevision\n  metadata:\n    \
         name: catalog.base.v2\n    namespace: default\n  spec:\n    packageName: base\n    \
         repository: catalog\n    revision: 2\n    workspaceName: v2\n    lifecycle: Published\n\
         {upstream}    labels:\n      package-variant.fn.kpt.dev/tag-stable: \"true\"\n"
    );
    out = out.replacen(upstream, &tagged, 1);
    out.push_str("functionConfig:\n");
    out.push_str(&indent(&set, 2));
    out
}

/// [`w2_tagged`] under `revisionActivationPolicy: Manual`, with the set annotated
/// `activate-revision: "<activate>"` (`Some("3")`: the tag's revision activated, the same
/// output as `w2_tagged`), or without it (`None`: revision 3 offered, the fleet kept on 2).
pub fn w2_tagged_manual(p: W2, activate: Option<&str>) -> String {
    let mut out = w2_tagged(p);
    let config = out.find("functionConfig:\n").unwrap_or(0);
    let spec = out[config..]
        .find("\n  spec:\n")
        .map_or(out.len(), |i| config + i + 9);
    out.insert_str(spec, "    revisionActivationPolicy: Manual\n");
    if let Some(r) = activate {
        let uid = "    uid: 5d1c7a4e-0000-4000-8000-000000000001\n";
        let at = out[config..]
            .find(uid)
            .map_or(out.len(), |i| config + i + uid.len());
        out.insert_str(
            at,
            &format!(
                "    annotations:\n      package-variant.fn.kpt.dev/activate-revision: \"{r}\"\n"
            ),
        );
    }
    out
}

/// The W2 ResourceList.
pub fn w2(p: W2) -> String {
    let mut out = String::with_capacity(p.repositories * 400 + p.owned * 600 + 4096);
    out.push_str(HEADER);
    out.push_str(
        "- apiVersion: porch.kpt.dev/v1alpha1\n  kind: PackageRevision\n  metadata:\n    \
         name: catalog.base.v3\n    namespace: default\n  spec:\n    packageName: base\n    \
         repository: catalog\n    revision: 3\n    workspaceName: v3\n    lifecycle: Published\n",
    );
    for i in 0..p.repositories {
        repository(&mut out, i);
    }
    // Nine in ten on wanted sites (prod: i % 3 == 0), one in ten on dev sites (obsolete).
    let obsolete = p.owned / 10;
    for k in 0..p.owned - obsolete {
        owned_variant(&mut out, (k * 3) % p.repositories.max(1));
    }
    for k in 0..obsolete {
        owned_variant(&mut out, (k * 3 + 2) % p.repositories.max(1));
    }
    out.push_str("functionConfig:\n");
    out.push_str(&indent(&w2_package_variant_set(), 2));
    out
}
