//! Pipeline placement, the extension's `spec.pipelinePlacement` (kpt#3925, kpt#2385): Porch
//! always puts a variant's functions in front of the Kptfile's own; the extension can put them
//! after the upstream's, or before or after a named upstream function.
//!
//! The functions keep Porch's owned-function names (`PackageVariant.<pv>.<fn>.<i>`), so every
//! run removes them and inserts them again where the placement says: after `kpt pkg update`
//! moves the upstream's functions, the next run puts the variant's back in place.

use crate::api::package_variant::PipelinePlacement;
use crate::package_variant::pipeline::PipelineError;
use crate::yaml::Item;

/// The name of a pipeline entry, if it has a plain one.
fn name_of(item: &Item) -> Option<&str> {
    item.value.get("name").and_then(|n| n.as_str())
}

/// Where the variant's functions go in the list `field`, among its other functions `others`
/// (in order). `None` is Porch's placement: first.
pub fn index(
    p: Option<&PipelinePlacement>,
    field: &str,
    others: &[Item],
) -> Result<usize, PipelineError> {
    let Some(p) = p else { return Ok(0) };
    match p.position.as_str() {
        "" | "first" => Ok(0),
        "last" => Ok(others.len()),
        position => {
            let at = others
                .iter()
                .position(|it| name_of(it) == Some(p.function.as_str()));
            match at {
                Some(i) if position == "before" => Ok(i),
                Some(i) => Ok(i + 1),
                None => {
                    let names: Vec<&str> = others.iter().filter_map(name_of).collect();
                    let known = if names.is_empty() {
                        "it has no named function".to_string()
                    } else {
                        format!("its named functions are {}", names.join(", "))
                    };
                    Err(PipelineError {
                        field: format!("pipeline.{field}"),
                        message: format!(
                            "spec.pipelinePlacement: no function named {:?} in the Kptfile's \
                             pipeline.{field} to place the variant's functions {position}; \
                             {known}",
                            p.function
                        ),
                    })
                }
            }
        }
    }
}
