//! The bound on a template's static values copied into the variants. A static value costs
//! nothing to render, but each target's PackageVariant carries a copy: a 100 KB value in a
//! template of 2,000 targets was 200 MB of output from a 0.3 MB input. CEL values have their
//! own budget ([`crate::cel::MAX_OUTPUT_BYTES`]); this one counts the
//! rest, once per rendered target, so the output stays bounded whatever the input asks for.

use std::collections::BTreeMap;

use crate::api::package_variant_set::{FunctionTemplate, PackageVariantTemplate};

/// Most bytes of static template values all the variants of one run may carry together
/// (keys and values of the template's maps, its functions, injectors and injection entries,
/// counted once per variant).
pub const MAX_COPIED_BYTES: u64 = 256 << 20;

/// The bytes of `t`'s static values one variant carries (about what they take in its spec).
pub fn static_bytes(t: &PackageVariantTemplate) -> u64 {
    let map = |m: &BTreeMap<String, String>| -> u64 {
        m.iter().map(|(k, v)| (k.len() + v.len()) as u64).sum()
    };
    let text = |s: &Option<String>| s.as_deref().map_or(0, str::len) as u64;
    // A function's JSON is about what it takes in the variant.
    let function =
        |f: &FunctionTemplate| serde_json::to_string(&f.function()).map_or(0, |s| s.len() as u64);
    let mut n = map(&t.labels) + map(&t.annotations);
    if let Some(d) = &t.downstream {
        n += text(&d.repo) + text(&d.package);
    }
    n += text(&t.adoption_policy) + text(&t.deletion_policy);
    if let Some(pc) = &t.package_context {
        n += map(&pc.data) + pc.remove_keys.iter().map(|k| k.len() as u64).sum::<u64>();
    }
    if let Some(p) = &t.pipeline {
        n += p
            .validators
            .iter()
            .chain(&p.mutators)
            .map(function)
            .sum::<u64>();
    }
    for i in &t.injectors {
        n += text(&i.group) + text(&i.version) + text(&i.kind) + text(&i.name);
    }
    for e in &t.injection {
        n += text(&e.binding_point);
        if let Some(c) = &e.cluster_resource {
            n += text(&c.name);
        }
        if let Some(d) = &e.direct_resource {
            n += serde_json::to_string(d).map_or(0, |s| s.len() as u64);
        }
        if let Some(p) = &e.package_resource {
            n += text(&p.repo) + text(&p.package) + text(&p.api_version) + text(&p.kind);
            n += text(&p.name);
        }
    }
    n
}

/// The error past [`MAX_COPIED_BYTES`], at the target whose variant reached it.
pub fn too_many_copies(each: u64, variants: usize) -> String {
    format!(
        "the template's static values are copied into every PackageVariant of its targets: \
         {each} bytes each, and the variants so far ({variants}) together carry more than the \
         limit of {MAX_COPIED_BYTES} bytes ({} MiB) for one run; put what every variant needs \
         in the upstream package, shorten the values, or split the targets over several \
         PackageVariantSets",
        MAX_COPIED_BYTES >> 20
    )
}
