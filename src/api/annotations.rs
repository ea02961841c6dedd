//! The function's own annotations, every key under [`PREFIX`] in one registry: the key, the
//! objects it goes on, and how its value is read. Both functions read their annotations through
//! it, strict decoding refuses a functionConfig's key under the prefix that is not here (with
//! the closest known key) or that is here for another kind ([`check_config`]), and `--help`'s
//! ANNOTATIONS section is rendered from it ([`help`]).
//!
//! Why: the annotations switch behaviours as much as spec fields do (`unfilled: error` makes CI
//! fail, `sync-policy: create-only` keeps variants), so a misspelt key must be refused as a
//! misspelt field is, not silently leave the default in force.

use serde_json::Value;

use super::package_variant::{EXTENSION_API_VERSION, PACKAGE_VARIANT_KIND};
use super::package_variant_set::PACKAGE_VARIANT_SET_KIND;
use super::suggest::closest;

/// Every key of the function's own annotations starts with this.
pub const PREFIX: &str = "package-variant.fn.kpt.dev/";

/// The objects an annotation goes on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum On {
    /// A PackageVariant functionConfig, Porch's or the extension's.
    PackageVariant,
    /// A PackageVariantSet functionConfig, Porch's or the extension's.
    PackageVariantSet,
    /// The extension's PackageVariantSet (`fn.kpt.dev/v1alpha1`) only.
    ExtensionSet,
    /// Written by a set on the PackageVariants it makes, read back by the set on later runs; a
    /// PackageVariant functionConfig may carry it (the set made it) and ignores it.
    SetVariants,
    /// Written by an extension PackageVariant on the resources it adds to the package.
    OwnedResources,
}

impl On {
    /// Whether a functionConfig of `api_version` and `kind` may carry the annotation.
    pub fn takes(self, api_version: &str, kind: &str) -> bool {
        match self {
            On::PackageVariant | On::SetVariants => kind == PACKAGE_VARIANT_KIND,
            On::PackageVariantSet => kind == PACKAGE_VARIANT_SET_KIND,
            On::ExtensionSet => {
                kind == PACKAGE_VARIANT_SET_KIND && api_version == EXTENSION_API_VERSION
            }
            On::OwnedResources => false,
        }
    }

    /// Where it goes, as `--help` says it after the key: `on a PackageVariant`.
    pub fn phrase(self) -> &'static str {
        match self {
            On::PackageVariant => "on a PackageVariant",
            On::PackageVariantSet => "on a PackageVariantSet",
            On::ExtensionSet => "on a PackageVariantSet (fn.kpt.dev/v1alpha1)",
            On::SetVariants => "written by a set on the PackageVariants it makes",
            On::OwnedResources => "written by a PackageVariant on the resources it adds",
        }
    }

    /// True for the annotations the function writes on items rather than reads from a
    /// functionConfig.
    pub fn is_written(self) -> bool {
        matches!(self, On::SetVariants | On::OwnedResources)
    }
}

/// One annotation of the function.
#[derive(Debug, PartialEq, Eq)]
pub struct Annotation {
    /// The whole key, [`PREFIX`] included.
    pub key: &'static str,
    pub on: On,
    /// The accepted values when they are a closed set, in the order messages list them, else
    /// empty: any string, read as `about` says (by the module that acts on it).
    pub values: &'static [&'static str],
    /// What the value is and does (`--help`, after [`On::phrase`]).
    pub about: &'static str,
}

impl Annotation {
    /// Its field path in results: `metadata.annotations[package-variant.fn.kpt.dev/unfilled]`.
    pub fn field(&self) -> String {
        format!("metadata.annotations[{}]", self.key)
    }

    /// Its value on an object as JSON, if any and a string (strict decoding refuses any other
    /// value on a functionConfig).
    pub fn get_json<'a>(&self, object: &'a Value) -> Option<&'a str> {
        object
            .get("metadata")?
            .get("annotations")?
            .get(self.key)?
            .as_str()
    }

    /// The value as one of [`Annotation::values`]: `Err` says it is not one, with the closest
    /// as "did you mean" (the caller adds what each value does).
    pub fn one_of(&self, value: &str) -> Result<&'static str, String> {
        if let Some(v) = self.values.iter().find(|v| **v == value) {
            return Ok(v);
        }
        let mut message = format!("annotation {}: unknown value {value:?}", self.key);
        if let Some(close) = closest(value, self.values.iter().copied()) {
            message.push_str(&format!("; did you mean {close:?}?"));
        }
        Err(message)
    }
}

/// Where the deployer keeps cluster copies in the package (`crate::package_variant::cluster_objects`).
pub const CLUSTER_OBJECTS: Annotation = Annotation {
    key: "package-variant.fn.kpt.dev/cluster-objects",
    on: On::PackageVariant,
    values: &[],
    about: "the package files (comma-separated paths, or directories ending in /) that hold \
            cluster copies for injection; items from stdin always count",
};

/// How an unfilled required injection point is reported.
pub const UNFILLED: Annotation = Annotation {
    key: "package-variant.fn.kpt.dev/unfilled",
    on: On::PackageVariant,
    values: &["warning", "error"],
    about: "\"error\" makes a required injection point left unfilled an error (exit 1, nothing \
            changed: for CI); \"warning\" (the default, Porch's) keeps it a warning",
};

/// How many of its variants one run of a set may delete.
pub const ALLOW_DELETIONS: Annotation = Annotation {
    key: "package-variant.fn.kpt.dev/allow-deletions",
    on: On::PackageVariantSet,
    values: &[],
    about: "\"all\" or a share such as \"75%\": lets a run delete more than the guard allows \
            (every variant, or over half of 4 or more)",
};

/// Which of create, update and delete a run of a set performs.
pub const SYNC_POLICY: Annotation = Annotation {
    key: "package-variant.fn.kpt.dev/sync-policy",
    on: On::PackageVariantSet,
    values: &["create-only", "create-update", "create-delete", "sync"],
    about: "create-only, create-update, create-delete or sync (the default, Porch's \
            behaviour): what a run may change",
};

/// The revision a set under `revisionActivationPolicy: Manual` moves its fleet to.
pub const ACTIVATE_REVISION: Annotation = Annotation {
    key: "package-variant.fn.kpt.dev/activate-revision",
    on: On::ExtensionSet,
    values: &[],
    about: "under spec.revisionActivationPolicy: Manual, \"N\" activates revision N (\"N!\" a \
            downgrade; \"repo/package=N,...\" with spec.upstreams)",
};

/// The last wave that may start under `rollout.pauseAfterWave`.
pub const APPROVED_WAVE: Annotation = Annotation {
    key: "package-variant.fn.kpt.dev/approved-wave",
    on: On::ExtensionSet,
    values: &[],
    about: "under spec.rollout.pauseAfterWave, \"W@R\" lets the waves up to W (a waveExpr \
            value) of the rollout to revision R start; a bare \"W\" approves the rollout under \
            way only",
};

/// A variant's wave, as the set's `rollout.waveExpr` gave it.
pub const WAVE: Annotation = Annotation {
    key: "package-variant.fn.kpt.dev/wave",
    on: On::SetVariants,
    values: &[],
    about: "the variant's waveExpr value; rollout.deletionOrder: Reverse deletes the highest \
            wave first",
};

/// The floating tag a variant's upstream revision was resolved from.
pub const UPSTREAM_TAG: Annotation = Annotation {
    key: "package-variant.fn.kpt.dev/upstream-tag",
    on: On::SetVariants,
    values: &[],
    about: "the tag (spec.upstream.tag) the variant's revision was resolved from",
};

/// The PackageVariant that owns a resource it added to the package.
pub const OWNER: Annotation = Annotation {
    key: "package-variant.fn.kpt.dev/owner",
    on: On::OwnedResources,
    values: &[],
    about: "the name of the PackageVariant that owns the resource; its next run updates it in \
            place, or removes it when no entry adds it any more",
};

/// Every annotation of the function, in the order `--help` lists them: those read from a
/// functionConfig, then those the function writes on items.
pub const REGISTRY: &[&Annotation] = &[
    &CLUSTER_OBJECTS,
    &UNFILLED,
    &ALLOW_DELETIONS,
    &SYNC_POLICY,
    &ACTIVATE_REVISION,
    &APPROVED_WAVE,
    &WAVE,
    &UPSTREAM_TAG,
    &OWNER,
];

/// The annotation of `key`, if it is one of the function's.
pub fn find(key: &str) -> Option<&'static Annotation> {
    REGISTRY.iter().copied().find(|a| a.key == key)
}

/// The kind as messages name it: `a PackageVariantSet`, `a ConfigMap`.
fn a_kind(kind: &str) -> String {
    format!("a {kind}")
}

/// Why a functionConfig of `api_version` and `kind` may not carry the annotation `key`, said
/// with what to write instead; `None` when it may (or the key is not under [`PREFIX`]). An
/// unknown key names the closest known one; a known key on another kind says which kinds take
/// it.
pub fn check_config(key: &str, api_version: &str, kind: &str) -> Option<String> {
    let suffix = key.strip_prefix(PREFIX)?;
    let Some(annotation) = find(key) else {
        return Some(unknown(suffix, key, api_version, kind));
    };
    if annotation.on.takes(api_version, kind) {
        return None;
    }
    Some(match annotation.on {
        On::ExtensionSet if kind == PACKAGE_VARIANT_SET_KIND => format!(
            "{key} is an extension of this function, not an annotation Porch's \
             PackageVariantSet reads; write apiVersion: {EXTENSION_API_VERSION} to use it \
             (docs/fleet-safety.md), or remove it"
        ),
        On::SetVariants => format!(
            "{key} does not go on {}: a PackageVariantSet writes it on the PackageVariants it \
             makes; remove it",
            a_kind(kind)
        ),
        On::OwnedResources => format!(
            "{key} does not go on {}: a PackageVariant (apiVersion {EXTENSION_API_VERSION}) \
             writes it on the resources it adds to the package; remove it",
            a_kind(kind)
        ),
        on => format!(
            "{key} does not go on {}: this function reads it {}{}; move it there, or remove it",
            a_kind(kind),
            on.phrase(),
            if on == On::ExtensionSet {
                ""
            } else {
                " (of either apiVersion)"
            }
        ),
    })
}

/// The message for an unknown key under the prefix: the closest key this kind takes (or,
/// failing that, any), else the keys this kind takes.
fn unknown(suffix: &str, key: &str, api_version: &str, kind: &str) -> String {
    let head = format!("unknown annotation {key:?}");
    let taken: Vec<&Annotation> = REGISTRY
        .iter()
        .copied()
        .filter(|a| a.on.takes(api_version, kind))
        .collect();
    let short = |a: &&Annotation| &a.key[PREFIX.len()..];
    let close = closest(suffix, taken.iter().map(short))
        .or_else(|| closest(suffix, REGISTRY.iter().map(short)));
    if let Some(close) = close {
        let close = find(&format!("{PREFIX}{close}")).expect("a registered key");
        let elsewhere = if close.on.takes(api_version, kind) {
            String::new()
        } else {
            format!(" (it goes {}, not on {})", close.on.phrase(), a_kind(kind))
        };
        return format!("{head}; did you mean {:?}?{elsewhere}", close.key);
    }
    if taken.is_empty() {
        format!(
            "{head}: this function reads none of its annotations ({PREFIX}...) on {}; remove it",
            a_kind(kind)
        )
    } else {
        let keys: Vec<&str> = taken.iter().map(|a| a.key).collect();
        format!(
            "{head}: this function's annotations on {} are {}; remove it or write one of them",
            a_kind(kind),
            keys.join(", ")
        )
    }
}

/// Width `--help` wraps to.
const WIDTH: usize = 96;

/// `--help`'s ANNOTATIONS section, from the registry: each key, where it goes and what its
/// value does, those read from a functionConfig first.
pub fn help() -> String {
    let mut out = format!(
        "ANNOTATIONS\n  On the functionConfig (any other key under {PREFIX} is an error, and so is\n  \
         a key on a kind it does not go on):\n"
    );
    // Two spaces after the longest key.
    let column = 2 + REGISTRY.iter().map(|a| a.key.len()).max().unwrap_or(0) + 2;
    let mut written = false;
    for a in REGISTRY {
        if a.on.is_written() && !written {
            written = true;
            out.push_str(
                "  Written by the function on the items it makes (a PackageVariant a set made \
                 may\n  carry those of the set's):\n",
            );
        }
        let text = format!("{}: {}", a.on.phrase(), a.about);
        let mut line = format!("  {:<width$}", a.key, width = column - 2);
        let mut empty = true;
        for word in text.split_whitespace() {
            if !empty && line.len() + 1 + word.len() > WIDTH {
                out.push_str(&line);
                out.push('\n');
                line = " ".repeat(column);
                empty = true;
            }
            if !empty {
                line.push(' ');
            }
            line.push_str(word);
            empty = false;
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_under_the_prefix() {
        for (i, a) in REGISTRY.iter().enumerate() {
            assert!(a.key.starts_with(PREFIX), "{}", a.key);
            assert!(
                REGISTRY[..i].iter().all(|b| b.key != a.key),
                "{} twice",
                a.key
            );
        }
    }

    #[test]
    fn a_typo_names_the_closest_key_and_a_wrong_kind_says_where_it_goes() {
        let pv = ("config.porch.kpt.dev/v1alpha1", "PackageVariant");
        let set = ("config.porch.kpt.dev/v1alpha2", "PackageVariantSet");
        let m = check_config("package-variant.fn.kpt.dev/unfiled", pv.0, pv.1).unwrap();
        assert!(
            m.ends_with("did you mean \"package-variant.fn.kpt.dev/unfilled\"?"),
            "{m}"
        );
        let m = check_config("package-variant.fn.kpt.dev/unfilled", set.0, set.1).unwrap();
        assert!(m.contains("does not go on a PackageVariantSet"), "{m}");
        assert!(
            m.contains("on a PackageVariant (of either apiVersion)"),
            "{m}"
        );
        assert_eq!(
            check_config("package-variant.fn.kpt.dev/unfilled", pv.0, pv.1),
            None
        );
        assert_eq!(
            check_config("package-variant.fn.kpt.dev/wave", pv.0, pv.1),
            None
        );
        assert_eq!(check_config("example.com/unfiled", pv.0, pv.1), None);
        let m = check_config("package-variant.fn.kpt.dev/approved-waves", set.0, set.1).unwrap();
        assert!(
            m.contains("did you mean \"package-variant.fn.kpt.dev/approved-wave\"?"),
            "{m}"
        );
    }

    #[test]
    fn every_key_is_in_the_help_once() {
        let help = help();
        for a in REGISTRY {
            assert_eq!(
                help.matches(&format!("\n  {} ", a.key)).count(),
                1,
                "{}\n{help}",
                a.key
            );
        }
        assert!(help.lines().all(|l| l.len() <= WIDTH), "{help}");
    }
}
