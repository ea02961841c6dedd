//! PackageVariant: placeholder until the mutations land.

use crate::resource_list::{Changes, ResourceList};
use crate::results::ResultItem;
use crate::yaml::Node;

pub fn run(_rl: &ResourceList, _config: &Node) -> (Changes, Vec<ResultItem>) {
    (
        Changes::default(),
        vec![ResultItem::info("PackageVariant: no mutations yet")],
    )
}

pub fn run_config_map(_rl: &ResourceList, _config: &Node) -> (Changes, Vec<ResultItem>) {
    (
        Changes::default(),
        vec![ResultItem::error(
            "ConfigMap functionConfig is not supported yet",
        )],
    )
}
