//! The upstream of a PackageVariantSet as the set names it: Porch's `repo`, `package` and
//! `revision | workspaceName`, plus the extension's floating `tag`.
//!
//! Its own type, apart from the PackageVariant's [`Upstream`]: a PackageVariant never takes a
//! tag (Porch's controller would not know it); the set resolves the tag and writes the
//! concrete revision into each variant ([`SetUpstream::pinned`]).

use serde::Deserialize;

use super::null_default;
use super::package_variant::Upstream;

/// `spec.upstream` or one entry of `spec.upstreams` (extension) of a PackageVariantSet.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SetUpstream {
    #[serde(default, deserialize_with = "null_default")]
    pub repo: String,
    #[serde(default, deserialize_with = "null_default")]
    pub package: String,
    /// 0 is unset.
    #[serde(default, deserialize_with = "null_default")]
    pub revision: i64,
    #[serde(default, deserialize_with = "null_default")]
    pub workspace_name: String,
    /// Extension (`fn.kpt.dev/v1alpha1` only): a floating tag (`latest`, `stable`, ...)
    /// resolved against the PackageRevisions among the items. `None` when absent or null.
    #[serde(default)]
    pub tag: Option<String>,
}

impl SetUpstream {
    /// The PackageVariant upstream as written (a tag left out: it is resolved first).
    pub fn as_written(&self) -> Upstream {
        Upstream {
            repo: self.repo.clone(),
            package: self.package.clone(),
            revision: self.revision,
            workspace_name: self.workspace_name.clone(),
        }
    }

    /// The PackageVariant upstream at the concrete `revision` a tag resolved to.
    pub fn pinned(&self, revision: i64) -> Upstream {
        Upstream {
            repo: self.repo.clone(),
            package: self.package.clone(),
            revision,
            workspace_name: String::new(),
        }
    }
}
