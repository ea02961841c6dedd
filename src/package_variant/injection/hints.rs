//! Why a point was left unfilled, in words that name what the input does hold: items an
//! injector names that are not candidates (not marked in-cluster, another apiVersion, another
//! namespace), and the in-cluster object whose name is close to an injector's that names
//! nothing ("did you mean"), as the extension's `bindingPoint` does.

use super::selector_applies;
use crate::api::package_variant::InjectionSelector;
use crate::api::suggest::{self, Budget};
use crate::krm::resource_list::ResourceList;
use crate::package_variant::package::{Package, IN_CLUSTER_ANNOTATION};
use std::collections::{HashMap, HashSet};

/// Most hints one point's result carries.
const MAX_HINTS: usize = 10;

/// What the hints of a run look up, built once when a point is first left unfilled: items by
/// (kind, name), the names of the in-cluster candidates by type, and the near names found so
/// far by (type, injector).
pub(super) struct Hints<'r> {
    /// The PackageVariant's namespace: the only one injected from.
    namespace: String,
    /// Whether the PackageVariant writes its namespace (else it reads `default`).
    written: bool,
    lookalikes: Option<HashMap<(&'r str, &'r str), Vec<usize>>>,
    names: HashMap<(&'r str, &'r str), HashSet<&'r str>>,
    near: HashMap<(&'r str, &'r str, usize), Option<&'r str>>,
    /// Work left for "did you mean" (the candidates may be many: bounded per run).
    budget: Budget,
}

impl<'r> Hints<'r> {
    pub(super) fn new(written_namespace: Option<&str>) -> Self {
        Hints {
            namespace: written_namespace
                .unwrap_or(crate::package_variant::DEFAULT_NAMESPACE)
                .to_string(),
            written: written_namespace.is_some(),
            lookalikes: None,
            names: HashMap::new(),
            near: HashMap::new(),
            budget: Budget::default(),
        }
    }

    /// The hints of an unfilled point: why the items the applicable injectors name are not
    /// candidates, then the candidates (in-cluster objects of the point's type, in
    /// `candidates`) whose names are close to an injector's that names none of them.
    pub(super) fn of(
        &mut self,
        rl: &'r ResourceList<'_>,
        pkg: &Package,
        injectors: &[InjectionSelector],
        point: usize,
        candidates: &[usize],
    ) -> Vec<String> {
        let mut out = self.near_misses(rl, pkg, injectors, point);
        if out.len() >= MAX_HINTS || candidates.is_empty() {
            return out;
        }
        let target = rl.meta(point);
        let key = (target.api_version(), target.kind());
        let names = self
            .names
            .entry(key)
            .or_insert_with(|| candidates.iter().map(|&u| rl.meta(u).name()).collect());
        for (j, sel) in injectors.iter().enumerate() {
            if !selector_applies(sel, target) || names.contains(sel.name.as_str()) {
                continue;
            }
            let budget = &mut self.budget;
            let near = *self.near.entry((key.0, key.1, j)).or_insert_with(|| {
                let known = candidates.iter().map(|&u| rl.meta(u).name());
                suggest::closest_within(&sel.name, known, budget)
            });
            if let Some(near) = near {
                out.push(format!(
                    "spec.injectors[{j}] names {:?}, and no in-cluster {} of that name is in \
                     namespace {:?}; did you mean {near:?}?",
                    sel.name,
                    target.kind(),
                    self.namespace
                ));
                if out.len() == MAX_HINTS {
                    break;
                }
            }
        }
        out
    }

    /// Why the items an applicable injector names, of the point's kind, are not candidates:
    /// not marked in-cluster, at another apiVersion, or in another namespace. The input
    /// contract is ours (Porch reads the cluster), so the result says what to change.
    fn near_misses(
        &mut self,
        rl: &'r ResourceList<'_>,
        pkg: &Package,
        injectors: &[InjectionSelector],
        point: usize,
    ) -> Vec<String> {
        let index = self.lookalikes.get_or_insert_with(|| {
            let mut index: HashMap<(&str, &str), Vec<usize>> = HashMap::new();
            for i in (0..pkg.len()).filter(|&i| rl.meta(i).is_object) {
                let m = rl.meta(i);
                index.entry((m.kind(), m.name())).or_default().push(i);
            }
            index
        });
        let target = rl.meta(point);
        let mut out = Vec::new();
        let mut seen = HashSet::new();
        for sel in injectors.iter().filter(|sel| selector_applies(sel, target)) {
            let key = (target.kind(), sel.name.as_str());
            for &u in index.get(&key).into_iter().flatten() {
                if u == point || !seen.insert(u) {
                    continue;
                }
                if out.len() == MAX_HINTS {
                    out.push(format!(
                        "(more items named by injectors are not candidates; only the first \
                         {MAX_HINTS} are listed)"
                    ));
                    return out;
                }
                let m = rl.meta(u);
                let marked = m.annotation(IN_CLUSTER_ANNOTATION);
                let what = format!("{} ({})", m.describe(), pkg.location(u));
                if marked != Some("true") {
                    let now = marked.map_or(String::new(), |v| format!(" (it is {v:?})"));
                    out.push(format!(
                        "{what} is named by an injector but is not an in-cluster object: mark it with the annotation {IN_CLUSTER_ANNOTATION}: \"true\"{now}"
                    ));
                } else if m.api_version() != target.api_version() {
                    out.push(format!(
                        "in-cluster {what} is at apiVersion {}, the injection point at {}: only objects of the point's apiVersion are injected",
                        m.api_version(), target.api_version()
                    ));
                } else if let Some(ns) = m.namespace().filter(|&ns| ns != self.namespace.as_str()) {
                    let pass = format!(
                        "pass the object of namespace {:?} (kubectl get {} {} -n {} -o yaml)",
                        self.namespace,
                        m.kind().to_lowercase(),
                        m.name(),
                        self.namespace
                    );
                    out.push(format!(
                        "in-cluster {what} is in namespace {ns:?}, not the PackageVariant's namespace {:?}: only objects of its namespace are injected; {}",
                        self.namespace,
                        another_namespace_fix(self.written, ns, &pass)
                    ));
                }
            }
        }
        out
    }
}

/// What to do about an in-cluster object found only in namespace `found`: when the
/// PackageVariant writes no namespace (so it reads `default`), the likely mistake is that
/// missing namespace, said first; then `pass`, the object of the variant's namespace.
pub(crate) fn another_namespace_fix(written: bool, found: &str, pass: &str) -> String {
    if written {
        pass.to_string()
    } else {
        format!(
            "set metadata.namespace: {found} on the PackageVariant if that is where it belongs \
             (it names no namespace, so it reads \"default\"), or {pass}"
        )
    }
}
