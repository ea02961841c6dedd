//! Where an item came from, read only from what kpt (or Porch) writes itself, never from what a
//! file says about itself.
//!
//! Every route from files sets the file path (`internal.config.kubernetes.io/path`, its legacy
//! twin and the index) over whatever the file wrote: `kpt fn eval`, `kpt fn render`, `kpt fn
//! source` (and so `kpt fn eval -` of its output) and Porch's eval and render. Only `kpt fn
//! render` (kpt's or Porch's) sets `internal.config.kubernetes.io/package-path`, on every item,
//! with paths relative to that package; every other route passes a value a file wrote through
//! untouched. So the package path is read only when the items show render's layout: every item
//! carries one, each package path has its own Kptfile (kind Kptfile at path `Kptfile`, index
//! 0: eval gives that path and index to one document only) and all lie under the shortest.
//! A package path that does not fit is one a file wrote: an error, and nothing changes.
//! Measured with kpt 1.0.0-beta.56 in `tests/provenance_kpt.rs`; the table per runner is in
//! docs/trust-and-limits-pv.md.

use crate::krm::object::ObjectMeta;
use crate::krm::results::{summarized, ResultItem, LISTED};
use std::borrow::Cow;
use std::collections::{HashMap, HashSet};

/// kpt render's annotation: the absolute path of the (sub)package that holds an item.
pub const PACKAGE_PATH_ANNOTATION: &str = "internal.config.kubernetes.io/package-path";

/// Field path of the package path, for results about it.
const PACKAGE_PATH_FIELD: &str = "metadata.annotations[internal.config.kubernetes.io/package-path]";

/// How paths are to be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// No package paths (eval, stdin, Porch's eval): every path is relative to the root.
    Flat,
    /// `kpt fn render`: paths are relative to the package each item names; `root` is the
    /// package being rendered (the shortest package path).
    Rendered { root: String },
}

impl Layout {
    /// True when item `m` belongs to the package being run on (always, unless rendered).
    pub fn in_root(&self, m: ObjectMeta<'_>) -> bool {
        match self {
            Layout::Flat => true,
            Layout::Rendered { root } => m.annotation(PACKAGE_PATH_ANNOTATION) == Some(root),
        }
    }

    /// The item's path relative to the root package, if it has one.
    pub fn root_relative_path<'m>(&self, m: ObjectMeta<'m>) -> Option<Cow<'m, str>> {
        let path = m.path()?;
        let Layout::Rendered { root } = self else {
            return Some(Cow::Borrowed(path));
        };
        match m
            .annotation(PACKAGE_PATH_ANNOTATION)
            .and_then(|pp| pp.strip_prefix(root.as_str()))
        {
            Some(sub) if !sub.is_empty() => Some(Cow::Owned(format!(
                "{}/{path}",
                sub.trim_start_matches('/')
            ))),
            _ => Some(Cow::Borrowed(path)),
        }
    }
}

/// The layout of the items whose metadata `meta` gives, or the errors on the package paths
/// no kpt route would have written (at most [`LISTED`], then a count). One pass.
pub fn read<'m>(
    len: usize,
    meta: impl Fn(usize) -> ObjectMeta<'m>,
) -> Result<Layout, Vec<ResultItem>> {
    let package_path = |i: usize| meta(i).annotation(PACKAGE_PATH_ANNOTATION);
    if (0..len).all(|i| package_path(i).is_none()) {
        return Ok(Layout::Flat);
    }
    // Render's evidence: a package path on every item, a Kptfile per package path.
    let without = (0..len).find(|&i| package_path(i).is_none());
    let mut kptfiles: HashSet<&str> = HashSet::new();
    let mut paths: HashSet<&str> = HashSet::new();
    for i in 0..len {
        let m = meta(i);
        let Some(pp) = package_path(i) else { continue };
        paths.insert(pp);
        if m.kind() == "Kptfile"
            && m.path() == Some("Kptfile")
            && m.index().is_none_or(|x| x == "0")
        {
            kptfiles.insert(pp);
        }
    }
    let root = paths
        .iter()
        .copied()
        .min_by_key(|p| (p.len(), *p))
        .unwrap_or("");
    // Why each package path that does not fit is not kpt's.
    let mut bad: HashMap<&str, String> = HashMap::new();
    for &pp in &paths {
        let why = if let Some(w) = without {
            format!(
                "{} ({}) carries none",
                meta(w).describe(),
                where_is(meta(w))
            )
        } else if !kptfiles.contains(pp) {
            format!("no Kptfile at path \"Kptfile\" (index 0) carries {pp:?}")
        } else if !(pp == root || pp.strip_prefix(root).is_some_and(|r| r.starts_with('/'))) {
            format!("it is not under the package being rendered, {root:?}")
        } else {
            continue;
        };
        bad.insert(pp, why);
    }
    if bad.is_empty() {
        return Ok(Layout::Rendered {
            root: root.to_string(),
        });
    }
    let errors = (0..len)
        .filter_map(|i| {
            let pp = package_path(i)?;
            Some(forged(meta(i), pp, bad.get(pp)?).on_item(i))
        })
        .collect();
    Err(summarized(errors, |more| {
        ResultItem::error(format!(
            "{more} more items carry a package path kpt did not write (only the first {LISTED} \
             are listed): remove {PACKAGE_PATH_ANNOTATION} from every file"
        ))
    }))
}

fn where_is(m: ObjectMeta<'_>) -> &str {
    m.path().unwrap_or("no path")
}

/// The error on an item whose package path no kpt route wrote.
fn forged(m: ObjectMeta<'_>, pp: &str, why: &str) -> ResultItem {
    ResultItem::error(format!(
        "{} ({}) carries {PACKAGE_PATH_ANNOTATION}: {pp:?}, which kpt writes itself only under \
         kpt fn render, on every item, with each package's Kptfile at path \"Kptfile\"; here \
         {why}, so a file wrote it (a blueprint may forge it to pass its file off as one of \
         another folder): remove the annotation from {}",
        m.describe(),
        where_is(m),
        where_is(m)
    ))
    .field(PACKAGE_PATH_FIELD)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::krm::object::MetaRecord;

    fn meta(kind: &str, path: &str, index: &str, pp: Option<&str>) -> MetaRecord {
        let mut annotations = vec![
            ("internal.config.kubernetes.io/path", path),
            ("internal.config.kubernetes.io/index", index),
        ];
        if let Some(pp) = pp {
            annotations.push((PACKAGE_PATH_ANNOTATION, pp));
        }
        MetaRecord::new("", kind, "x", None, &[], &annotations)
    }

    fn layout(items: &[MetaRecord]) -> Result<Layout, Vec<ResultItem>> {
        read(items.len(), |i| items[i].view())
    }

    #[test]
    fn render_layouts_are_read() {
        let items = [
            meta("Kptfile", "Kptfile", "0", Some("/p/sub")),
            meta("ConfigMap", "a.yaml", "0", Some("/p/sub")),
            meta("Kptfile", "Kptfile", "0", Some("/p")),
        ];
        let l = layout(&items).unwrap();
        assert_eq!(l, Layout::Rendered { root: "/p".into() });
        assert_eq!(
            l.root_relative_path(items[1].view()).as_deref(),
            Some("sub/a.yaml")
        );
        assert!(!l.in_root(items[1].view()) && l.in_root(items[2].view()));
        assert_eq!(
            layout(&[meta("ConfigMap", "a.yaml", "0", None)]),
            Ok(Layout::Flat)
        );
    }

    #[test]
    fn package_paths_kpt_did_not_write_are_refused() {
        // Not on every item.
        let some = [
            meta("Kptfile", "Kptfile", "0", Some("/p")),
            meta("ConfigMap", "a.yaml", "0", Some("/p/in-cluster")),
            meta("ConfigMap", "b.yaml", "0", None),
        ];
        // Every item, but a second Kptfile document (index 1) for the forged package.
        let two_docs = [
            meta("Kptfile", "Kptfile", "0", Some("/p")),
            meta("Kptfile", "Kptfile", "1", Some("/p/in-cluster")),
            meta("ConfigMap", "a.yaml", "0", Some("/p/in-cluster")),
        ];
        // A Kptfile per package, but not under the root.
        let outside = [
            meta("Kptfile", "Kptfile", "0", Some("/p")),
            meta("Kptfile", "Kptfile", "0", Some("/px")),
        ];
        for items in [&some[..], &two_docs, &outside] {
            let errors = layout(items).unwrap_err();
            assert!(!errors.is_empty());
            assert!(
                errors[0].message.contains("remove the annotation"),
                "{errors:?}"
            );
        }
    }
}
