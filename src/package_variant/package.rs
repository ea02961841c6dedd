//! The package as the PackageVariant function sees it: which items are package files, which are
//! in-cluster objects (context for injection, not package), which one is the functionConfig read
//! back from the package, and the trees of the items being edited.
//!
//! Why a module: the three mutations (context, pipeline, injection) and the Kptfile conditions
//! edit the same items (the Kptfile twice), so they share one set of trees, loaded on first use;
//! at the end only the trees that were really touched become [`Changes::edited`].

use crate::krm::object::{MetaRecord, ObjectMeta};
use crate::krm::resource_list::{Changes, ItemLists, ResourceList};
use crate::krm::results::ResultItem;
use crate::package_variant::provenance::{self, Layout};
use crate::package_variant::shared::SharedInjections;
use crate::yaml::Node;
use std::borrow::Cow;
use std::collections::BTreeMap;

/// `metadata.name` of the package context ConfigMap (read and edited by `context`; here because
/// the package tells it apart from the package files).
pub const CONTEXT_NAME: &str = "kptfile.kpt.dev";

/// Marks an item as an in-cluster object (input for config injection, not part of the package).
pub const IN_CLUSTER_ANNOTATION: &str = "config.porch.kpt.dev/in-cluster";

pub use crate::package_variant::provenance::PACKAGE_PATH_ANNOTATION;

/// The items of a ResourceList, classified, with the trees loaded so far.
pub struct Package<'r, 'a> {
    /// The ResourceList the items come from.
    pub rl: &'r ResourceList<'a>,
    /// Borrowed from the ResourceList's kept trees until edited (copied on the first edit).
    trees: BTreeMap<usize, Cow<'r, Node>>,
    config: Option<MetaRecord>,
    /// Injections made only when the output is written (see [`SharedInjections`]).
    pub shared: SharedInjections,
    /// The Kptfile's long lists, written from their compact form ([`Changes::lists`]).
    pub lists: Option<Box<dyn ItemLists>>,
    /// How the items' paths read ([`provenance`]); `Flat` when the package paths are refused.
    layout: Layout,
    /// The refused package paths, until [`Package::check_provenance`] takes them.
    provenance_errors: Vec<ResultItem>,
}

impl<'r, 'a> Package<'r, 'a> {
    /// Classifies the items of `rl`; `config` is the functionConfig's identity, used to
    /// recognise the functionConfig when kpt also sends it as an item.
    pub fn new(rl: &'r ResourceList<'a>, config: Option<MetaRecord>) -> Self {
        let (layout, provenance_errors) = match provenance::read(rl.items.len(), |i| rl.meta(i)) {
            Ok(l) => (l, Vec::new()),
            Err(e) => (Layout::Flat, e),
        };
        Package {
            rl,
            trees: BTreeMap::new(),
            config,
            shared: SharedInjections::default(),
            lists: None,
            layout,
            provenance_errors,
        }
    }

    /// The package paths no kpt route would have written, as errors (see [`provenance`]):
    /// every function checks this before it reads which package an item is in.
    pub fn check_provenance(&mut self) -> Result<(), Vec<ResultItem>> {
        match std::mem::take(&mut self.provenance_errors) {
            e if e.is_empty() => Ok(()),
            e => Err(e),
        }
    }

    /// How the items' paths read.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Number of items.
    pub fn len(&self) -> usize {
        self.rl.items.len()
    }

    /// True when there are no items.
    pub fn is_empty(&self) -> bool {
        self.rl.items.is_empty()
    }

    /// The metadata of item `i`.
    pub fn meta(&self, i: usize) -> ObjectMeta<'_> {
        self.rl.meta(i)
    }

    /// True for items annotated `config.porch.kpt.dev/in-cluster: "true"`.
    pub fn is_in_cluster(&self, i: usize) -> bool {
        self.meta(i).annotation(IN_CLUSTER_ANNOTATION) == Some("true")
    }

    /// True for the functionConfig read back from the package (same apiVersion, kind, name).
    /// Never the package context: a ConfigMap functionConfig named like it (`kptfile.kpt.dev`)
    /// sets data in the package's context, which would otherwise be left out as the
    /// functionConfig and reported "not found".
    pub fn is_config_item(&self, i: usize) -> bool {
        let m = self.meta(i);
        let is_context = m.kind() == "ConfigMap" && m.name() == CONTEXT_NAME;
        !is_context
            && self.config.as_ref().map(MetaRecord::view).is_some_and(|c| {
                m.is_object
                    && c.api_version() == m.api_version()
                    && c.kind() == m.kind()
                    && c.name() == m.name()
            })
    }

    /// Indices of the package's own objects: not in-cluster objects, not the functionConfig,
    /// not items that are not objects at all.
    pub fn package_items(&self) -> Vec<usize> {
        (0..self.len())
            .filter(|&i| {
                self.meta(i).is_object && !self.is_in_cluster(i) && !self.is_config_item(i)
            })
            .collect()
    }

    /// Indices of the package items of the package being run on, leaving out its
    /// subpackages' items. `kpt fn render` gives every item the absolute path of the
    /// (sub)package that owns it (`internal.config.kubernetes.io/package-path`) and paths
    /// relative to that package, so a subpackage's Kptfile is at path `Kptfile` too: the root
    /// package is the one with the shortest package path. Without the annotation (eval, Porch)
    /// paths are relative to the root and every item counts. A package path is read only as
    /// kpt render writes it ([`provenance`]).
    pub fn root_package_items(&self) -> Vec<usize> {
        self.package_items()
            .into_iter()
            .filter(|&i| self.layout.in_root(self.meta(i)))
            .collect()
    }

    /// True when no package item carries a path annotation (a hand-made ResourceList).
    pub fn has_no_paths(&self) -> bool {
        self.package_items()
            .iter()
            .all(|&i| self.meta(i).path().is_none())
    }

    /// A short name for where item `i` lives, for messages: its path, else `Kind/name`.
    pub fn location(&self, i: usize) -> String {
        let m = self.meta(i);
        m.path().map_or_else(|| m.describe(), str::to_string)
    }

    /// The tree of item `i` (loaded on first use; edits made so far included).
    pub fn tree(&mut self, i: usize) -> Result<&Node, Box<ResultItem>> {
        self.load(i)?;
        self.trees
            .get(&i)
            .map(|t| &**t)
            .ok_or_else(|| Box::new(ResultItem::error("item tree missing").on_item(i)))
    }

    /// The tree of item `i` for editing. Only call this when something really changes: it is
    /// the `&mut` accessors below it that mark nodes for re-emission.
    pub fn tree_mut(&mut self, i: usize) -> Result<&mut Node, Box<ResultItem>> {
        self.load(i)?;
        self.trees
            .get_mut(&i)
            .map(Cow::to_mut)
            .ok_or_else(|| Box::new(ResultItem::error("item tree missing").on_item(i)))
    }

    /// The tree of item `i` if it is loaded.
    pub fn loaded(&self, i: usize) -> Option<&Node> {
        self.trees.get(&i).map(|t| &**t)
    }

    /// Drops the tree of item `i` if it is untouched (it is read again when next asked for).
    pub fn release(&mut self, i: usize) {
        if self.trees.get(&i).is_some_and(|t| t.is_pristine()) {
            self.trees.remove(&i);
        }
    }

    fn load(&mut self, i: usize) -> Result<(), Box<ResultItem>> {
        if i >= self.len() {
            return Err(Box::new(ResultItem::error(format!("no item {i}"))));
        }
        if !self.trees.contains_key(&i) {
            let mut t = self.rl.original(i)?;
            // An item edited again after its injection was deferred: the injection now.
            if self.shared.contains(i) {
                self.shared.apply_now(i, t.to_mut());
            }
            self.trees.insert(i, t);
        }
        Ok(())
    }

    /// The changes: every tree that was touched, the deferred injections, and the in-cluster
    /// objects that came in without a path (fed through stdin: context, not package, so they
    /// do not go out).
    pub fn into_changes(self) -> Changes {
        let removed = (0..self.len())
            .filter(|&i| self.is_in_cluster(i) && self.meta(i).path().is_none())
            .collect();
        let edited = self
            .trees
            .into_iter()
            .filter(|(_, t)| !t.is_pristine())
            .map(|(i, t)| (i, t.into_owned()))
            .collect();
        Changes {
            edited,
            removed,
            added: Vec::new(),
            appended: None,
            deferred: Some(Box::new(self.shared)),
            lists: self.lists,
        }
    }
}
