//! The expansion's outcome ([`Expansion`], and [`TypedExpansion`] before the variants are
//! written), rendered again on demand: [`Specs`] replays each wanted variant's render from
//! what it recorded, and [`TypedExpansion`]'s accessors and JSON form read it; [`OwnerInfo`]
//! is what every new variant carries. Apart from the loop in `decision.rs`, which only fills
//! them.

use serde_json::Value;

use super::super::rollout::Waves;
use crate::api::package_variant::{PackageVariantSpec, Upstream};
use crate::api::package_variant_set::PackageVariantTemplate;
use crate::krm::results::ResultItem;
use crate::package_variant_set::expansion::record::Records;
use crate::package_variant_set::expansion::templates::{self, RenderError};
use crate::package_variant_set::reconciliation::ensure::DesiredVariant;

/// What the expansion does to the ResourceList.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Expansion {
    /// Errors (on the config or an item), warnings, and one info summarising the changes.
    pub results: Vec<ResultItem>,
    /// (item index of an existing owned PackageVariant, its new `spec`): keep its metadata.
    pub updates: Vec<(usize, Value)>,
    /// Item indexes to leave out of the output (obsolete owned PackageVariants).
    pub deletes: Vec<usize>,
    /// New PackageVariant objects, complete, in target order.
    pub creates: Vec<Value>,
    /// How many distinct CEL expressions were compiled (each at most once per run).
    pub cel_compilations: usize,
}

/// [`Expansion`] before the variants are written: the specs of updates typed, the new
/// variants as [`DesiredVariant`]s whose specs [`TypedExpansion::spec`] renders again from what
/// their render recorded, one at a time, and [`TypedExpansion::new_variant`] completes. The
/// ResourceList path writes each while the output is written, so a fleet's new variants are
/// never all held at once.
#[derive(Debug, Clone, Default)]
pub struct TypedExpansion {
    pub results: Vec<ResultItem>,
    /// (item index of an existing owned PackageVariant, its new `spec`).
    pub updates: Vec<(usize, PackageVariantSpec)>,
    pub deletes: Vec<usize>,
    /// (item index of an updated variant, the tag its `upstream-tag` annotation must say, or
    /// `None` to remove it): only where the annotation says otherwise.
    pub tag_edits: Vec<(usize, Option<String>)>,
    /// The variants to create, in target order.
    pub creates: Vec<DesiredVariant>,
    pub cel_compilations: usize,
    /// Item indexes (sorted) of the variants the rollout upgrades: written without their
    /// `status`, which described the old spec.
    pub reset_status: Vec<usize>,
    /// (item index of an upgraded variant, its wave): where its wave annotation says
    /// otherwise ([`deletion_order::ANNOTATION`]).
    pub wave_edits: Vec<(usize, String)>,
    pub(in super::super) owner: OwnerInfo,
    pub(super) specs: Specs,
    /// Each wanted variant's wave, when the rollout has waves.
    pub(in super::super) waves: Waves,
}

/// What the specs of the wanted variants are rendered again from: the set's upstream and
/// templates, and the values each render recorded (its repo and package defaults, then its
/// expressions' values).
#[derive(Debug, Clone, Default)]
pub(super) struct Specs {
    /// Per upstream of the set: what its variants carry as `spec.upstream`, and the tag it
    /// follows.
    pub(super) upstreams: Vec<(Upstream, Option<String>)>,
    pub(super) templates: Vec<Option<PackageVariantTemplate>>,
    pub(super) record: Records,
}

impl Specs {
    pub(super) fn tag(&self, d: &DesiredVariant) -> Option<&str> {
        self.upstreams.get(d.upstream)?.1.as_deref()
    }

    pub(super) fn of(&self, d: &DesiredVariant) -> Result<PackageVariantSpec, RenderError> {
        templates::replay(
            self.upstreams.get(d.upstream).map(|(u, _)| u),
            self.templates.get(d.target).and_then(Option::as_ref),
            self.record.get(d.record),
            self.record.get(d.record + 1),
            &self.record,
            d.record + 2,
        )
    }
}

impl TypedExpansion {
    pub(super) fn failed(results: Vec<ResultItem>) -> Self {
        TypedExpansion {
            results,
            ..Default::default()
        }
    }

    /// The spec of a wanted variant, rendered again from what its render recorded.
    ///
    /// The replay runs the render's own code over the values the render produced, so it
    /// cannot fail where the render succeeded; an error here is a bug, reported as such.
    pub fn spec(&self, d: &DesiredVariant) -> Result<PackageVariantSpec, RenderError> {
        self.specs.of(d)
    }

    /// The tag a wanted variant's upstream follows (its `upstream-tag` annotation), if any.
    pub fn tag(&self, d: &DesiredVariant) -> Option<&str> {
        self.specs.tag(d)
    }

    /// The JSON form ([`expand`]'s result).
    pub fn into_json(self) -> Expansion {
        let creates = self
            .creates
            .iter()
            .map(|d| {
                self.spec(d)
                    .ok()
                    .and_then(|spec| serde_json::to_value(self.new_variant(d, &spec)).ok())
                    .unwrap_or(Value::Null)
            })
            .collect();
        Expansion {
            results: self.results,
            updates: self
                .updates
                .into_iter()
                .map(|(i, spec)| (i, spec.to_json()))
                .collect(),
            deletes: self.deletes,
            creates,
            cel_compilations: self.cel_compilations,
        }
    }
}

/// What every new variant of the set carries: namespace, owner label, owner reference.
#[derive(Debug, Clone, Default)]
pub(in crate::package_variant_set::reconciliation) struct OwnerInfo {
    pub(in crate::package_variant_set::reconciliation) namespace: String,
    /// Value of the owner label: the set's uid, or its name.
    pub(in crate::package_variant_set::reconciliation) owner: String,
    pub(in crate::package_variant_set::reconciliation) set_api_version: String,
    pub(in crate::package_variant_set::reconciliation) set_kind: String,
    pub(in crate::package_variant_set::reconciliation) set_name: String,
    /// Empty for a set read from a file: no owner reference then.
    pub(in crate::package_variant_set::reconciliation) set_uid: String,
}
