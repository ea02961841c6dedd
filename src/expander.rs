//! PackageVariantSet expander: placeholder until the expander lands.

use crate::resource_list::{Changes, ResourceList};
use crate::results::ResultItem;
use crate::yaml::Node;

pub fn run(_rl: &ResourceList, _config: &Node) -> (Changes, Vec<ResultItem>) {
    (
        Changes::default(),
        vec![ResultItem::error("PackageVariantSet is not supported yet")],
    )
}
