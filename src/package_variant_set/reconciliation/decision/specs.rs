//! What the specs of the set's variants are rendered again from, so that the expansion keeps
//! recorded values, not a fleet of specs (`TypedExpansion::spec`).

use crate::api::package_variant::{PackageVariantSpec, Upstream};
use crate::api::package_variant_set::PackageVariantTemplate;
use crate::package_variant_set::expansion::record::Records;
use crate::package_variant_set::expansion::templates::{self, RenderError};
use crate::package_variant_set::reconciliation::ensure::DesiredVariant;

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
