//! The check that skimming items changes nothing: an input read keeping every item's tree and
//! read skimming each item's values (what a large input gets, see
//! [`crate::yaml::parse::Parser::skimming_items`]) must give the same items, metadata, output
//! and trees, or the same refusal. Tests replay it over every corpus input; the fuzz targets
//! run it on every input they make.

use super::{Changes, ResourceList};

/// Reads `src` both ways and says how the readings differ, if they do.
#[doc(hidden)]
pub fn compare_readings(src: &str) -> Result<(), String> {
    let kept = ResourceList::parse_keeping(src, true);
    let skimmed = ResourceList::parse_keeping(src, false);
    let (kept, skimmed) = match (kept, skimmed) {
        (Err(a), Err(b)) if a == b => return Ok(()),
        (Ok(a), Ok(b)) => (a, b),
        (a, b) => {
            return Err(format!(
                "kept: {:?}\nskimmed: {:?}",
                a.err().map(|e| e.0),
                b.err().map(|e| e.0)
            ))
        }
    };
    if kept.items != skimmed.items {
        return Err("the items' records differ".to_string());
    }
    if (
        &kept.api_version,
        kept.json,
        kept.tail,
        &kept.config_meta,
        kept.function_config(),
        &kept.previous_results,
    ) != (
        &skimmed.api_version,
        skimmed.json,
        skimmed.tail,
        &skimmed.config_meta,
        skimmed.function_config(),
        &skimmed.previous_results,
    ) {
        return Err("the ResourceList's own fields differ".to_string());
    }
    for i in 0..kept.items.len() {
        let (a, b) = (kept.original(i), skimmed.original(i));
        if a.as_ref().ok() != b.as_ref().ok() || a.is_ok() != b.is_ok() {
            return Err(format!("item {i}'s tree differs"));
        }
    }
    let none = Changes::default();
    if kept.emit(&none, &[]) != skimmed.emit(&none, &[]) {
        return Err("the output differs".to_string());
    }
    Ok(())
}
