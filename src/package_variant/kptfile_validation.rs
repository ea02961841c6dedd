//! The Kptfile this run writes, held to what kpt v1.0.1 checks when it reads a package
//! (`KptFile.Validate`, kptdev/kpt `api/kptfile/v1/validation.go` at 00a08c1a: #4742, #4750
//! and #4743's selectors). Checked only when the run edits the Kptfile. What the run writes
//! itself (the variant's pipeline functions, `PackageVariant.<pv>.<fn>.<i>`) and kpt would
//! refuse is an error on the Kptfile's field, and nothing changes; what it found there and
//! leaves as it is (the upstream's functions, `upstream`, `upstreamLock`, `info`, `inventory`)
//! is a warning naming the field: the package needs mending upstream. kpt itself validates a
//! Kptfile before a render runs the function, so under render only what the run adds can fail.
//!
//! What kpt checks, and where it is checked here:
//! - each pipeline function: one of `image` and `exec`, a valid image reference, at most one of
//!   `configMap`, `configPath` and `configRef`, `configRef`'s `kind` and `name`, a `configPath`
//!   inside the package naming a file of it, each selector's `resourceFileRegexp` compiling
//!   ([`Function::problems`], which also checks `when` as kpt compiles it);
//! - `upstream`: `type` empty or `git`, `git` given for `git`, its `repo` (no whitespace) and
//!   `ref` not empty, a known `updateStrategy`;
//! - `upstreamLock`: `type` empty, `git` or `generic`, not both `git` and `generic`, the one
//!   its type names, `git`'s `repo`, `ref` and `commit` not empty;
//! - `info`: every readiness gate's `conditionType` not empty, `licenseFile` relative and
//!   inside the package;
//! - `inventory`: `name`, `namespace` and `inventoryID` all given or none.

use crate::api::function::{clean, Function, WhenBudget};
use crate::krm::results::ResultItem;
use crate::package_variant::package::Package;
use crate::package_variant::pipeline::is_package_variant_name;
use crate::yaml::to_json;
use serde_json::Value;

/// kpt's update strategies (`ToUpdateStrategy`).
const UPDATE_STRATEGIES: [&str; 4] = [
    "resource-merge",
    "fast-forward",
    "force-delete-replace",
    "copy-merge",
];

/// What kpt v1.0.1 would refuse in the root Kptfile (item `k`) as this run leaves it, as
/// errors (what the variant `pv_name` writes) and warnings (what it leaves as it found it);
/// empty when the run did not edit it. `own_path` is the functionConfig's file, which kpt v1.0
/// leaves out of the items (kptdev/kpt#4673) but which is a file of the package.
pub fn check(
    pkg: &mut Package,
    k: usize,
    pv_name: &str,
    own_path: Option<&str>,
) -> Vec<ResultItem> {
    let Some(tree) = pkg.loaded(k) else {
        return Vec::new();
    };
    if tree.is_pristine() {
        return Vec::new();
    }
    let Ok(kf) = to_json(tree) else {
        return Vec::new();
    };
    let mut found: Vec<(String, String)> = Vec::new();
    let mut own: Vec<(String, String)> = Vec::new();
    let files = package_files(pkg, own_path);
    // Gates and conditions written from their compact form are not in the tree; the run
    // writes them from the points, never empty.
    let gates_in_tree = pkg.lists.is_none();
    functions(&kf, files.as_deref(), pv_name, &mut own, &mut found);
    upstream(&kf, &mut found);
    upstream_lock(&kf, &mut found);
    info(&kf, gates_in_tree, &mut found);
    inventory(&kf, &mut found);
    let errors = own.into_iter().map(|(field, why)| {
        ResultItem::error(format!(
            "the Kptfile this run would write is one kpt v1.0.1 refuses: {field} {why}; \
             nothing was changed"
        ))
        .field(field)
        .on_item(k)
    });
    let warnings = found.into_iter().map(|(field, why)| {
        ResultItem::warning(format!(
            "kpt v1.0.1 refuses this Kptfile, which this run leaves as it found it there: \
             {field} {why}; mend it in the upstream package"
        ))
        .field(field)
        .on_item(k)
    });
    errors.chain(warnings).collect()
}

/// The root package's file paths (cleaned), `None` when the items carry no paths (a
/// hand-made ResourceList: which files exist cannot be known).
fn package_files(pkg: &Package, own_path: Option<&str>) -> Option<Vec<String>> {
    if pkg.has_no_paths() {
        return None;
    }
    let mut files: Vec<String> = pkg
        .root_package_items()
        .into_iter()
        .filter_map(|i| pkg.meta(i).path().map(clean))
        .collect();
    files.extend(own_path.map(clean));
    Some(files)
}

fn functions(
    kf: &Value,
    files: Option<&[String]>,
    pv_name: &str,
    own: &mut Vec<(String, String)>,
    found: &mut Vec<(String, String)>,
) {
    let mut budget = WhenBudget::default();
    for list in ["mutators", "validators"] {
        let Some(steps) = kf
            .pointer(&format!("/pipeline/{list}"))
            .and_then(Value::as_array)
        else {
            continue;
        };
        for (i, step) in steps.iter().enumerate() {
            let at = format!("pipeline.{list}[{i}]");
            let name = step.get("name").and_then(Value::as_str).unwrap_or("");
            let found = if is_package_variant_name(name, pv_name) {
                &mut *own
            } else {
                &mut *found
            };
            let f: Function = match serde_json::from_value(step.clone()) {
                Ok(f) => f,
                Err(e) => {
                    found.push((at, format!("cannot be read as a kpt function: {e}")));
                    continue;
                }
            };
            for (sub, why) in f.problems(!f.config_map.is_empty(), &mut budget) {
                found.push((format!("{at}{sub}"), why));
            }
            if let (false, Some(files)) = (f.config_path.is_empty(), files) {
                if !files.contains(&clean(&f.config_path)) {
                    found.push((
                        format!("{at}.configPath"),
                        format!(
                            "names {:?}, which is not a file of the package: kpt fails to open \
                             the functionConfig; add the file or give the config another way",
                            f.config_path
                        ),
                    ));
                }
            }
        }
    }
}

fn text<'v>(v: &'v Value, pointer: &str) -> &'v str {
    v.pointer(pointer).and_then(Value::as_str).unwrap_or("")
}

fn given(v: &Value, pointer: &str) -> bool {
    v.pointer(pointer).is_some_and(|x| !x.is_null())
}

fn upstream(kf: &Value, found: &mut Vec<(String, String)>) {
    if !given(kf, "/upstream") {
        return;
    }
    let kind = text(kf, "/upstream/type");
    if !kind.is_empty() && kind != "git" {
        found.push((
            "upstream.type".into(),
            format!("is {kind:?}: must be \"git\" when set"),
        ));
    }
    let git = given(kf, "/upstream/git");
    if kind == "git" && !git {
        found.push((
            "upstream.git".into(),
            "must be set when upstream.type is \"git\"".into(),
        ));
    }
    if git {
        let repo = text(kf, "/upstream/git/repo");
        if repo.is_empty() {
            found.push(("upstream.git.repo".into(), "must not be empty".into()));
        } else if repo.chars().any(|c| matches!(c, ' ' | '\t' | '\r' | '\n')) {
            found.push((
                "upstream.git.repo".into(),
                format!("is {repo:?}: must not contain whitespace"),
            ));
        }
        if text(kf, "/upstream/git/ref").is_empty() {
            found.push(("upstream.git.ref".into(), "must not be empty".into()));
        }
    }
    let strategy = text(kf, "/upstream/updateStrategy");
    if !strategy.is_empty() && !UPDATE_STRATEGIES.contains(&strategy) {
        found.push((
            "upstream.updateStrategy".into(),
            format!(
                "is {strategy:?}: must be one of {}",
                UPDATE_STRATEGIES.join(", ")
            ),
        ));
    }
}

fn upstream_lock(kf: &Value, found: &mut Vec<(String, String)>) {
    if !given(kf, "/upstreamLock") {
        return;
    }
    let kind = text(kf, "/upstreamLock/type");
    let (git, generic) = (
        given(kf, "/upstreamLock/git"),
        given(kf, "/upstreamLock/generic"),
    );
    if !["", "git", "generic"].contains(&kind) {
        found.push((
            "upstreamLock.type".into(),
            format!("is {kind:?}: must be \"git\" or \"generic\" when set"),
        ));
    }
    if git && generic {
        found.push((
            "upstreamLock".into(),
            "must not specify both `git` and `generic`".into(),
        ));
    }
    if kind == "git" && !git {
        found.push((
            "upstreamLock.git".into(),
            "must be set when type is \"git\"".into(),
        ));
    }
    if kind == "generic" && !generic {
        found.push((
            "upstreamLock.generic".into(),
            "must be set when type is \"generic\"".into(),
        ));
    }
    if git {
        for f in ["repo", "ref", "commit"] {
            if text(kf, &format!("/upstreamLock/git/{f}")).is_empty() {
                found.push((format!("upstreamLock.git.{f}"), "must not be empty".into()));
            }
        }
    }
}

fn info(kf: &Value, gates_in_tree: bool, found: &mut Vec<(String, String)>) {
    let gates = kf
        .pointer("/info/readinessGates")
        .and_then(Value::as_array)
        .filter(|_| gates_in_tree);
    if let Some(gates) = gates {
        for (i, g) in gates.iter().enumerate() {
            if text(g, "/conditionType").is_empty() {
                found.push((
                    format!("info.readinessGates[{i}].conditionType"),
                    "must not be empty".into(),
                ));
            }
        }
    }
    let license = text(kf, "/info/licenseFile");
    if license.starts_with('/') {
        found.push((
            "info.licenseFile".into(),
            format!("is {license:?}: must be a relative path"),
        ));
    } else if !license.is_empty() && clean(license).contains("..") {
        found.push((
            "info.licenseFile".into(),
            format!("is {license:?}: must not reference a path outside the package"),
        ));
    }
}

fn inventory(kf: &Value, found: &mut Vec<(String, String)>) {
    if !given(kf, "/inventory") {
        return;
    }
    let fields = ["name", "namespace", "inventoryID"];
    let missing: Vec<String> = fields
        .iter()
        .filter(|f| text(kf, &format!("/inventory/{f}")).is_empty())
        .map(|f| format!("`{f}`"))
        .collect();
    if !missing.is_empty() && missing.len() < fields.len() {
        found.push((
            "inventory".into(),
            format!(
                "all of `name`, `namespace`, and `inventoryID` must be specified; missing: {}",
                missing.join(", ")
            ),
        ));
    }
}
