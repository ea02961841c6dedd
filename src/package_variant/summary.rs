//! The run's summary: one info result, first among a PackageVariant run's infos (errors and
//! warnings are listed before infos), saying what the variant set in the package, so a CI log
//! shows it without a diff.
//!
//! One line of `;`-separated clauses, in the order the steps run, each a fixed word and a
//! bracketed list (`context set [region, tier]`); a clause with nothing to say is left out, and
//! the last says how many items changed (`no change` on a second run). Lists show at most
//! [`SHOWN`] entries and count the rest, so a wide package's summary stays one bounded line.
//! A refused run has no summary: nothing was applied, and its errors say why.

use crate::api::package_variant::PackageVariantSpec;
use crate::krm::results::ResultItem;
use crate::package_variant::injection::InjectionPoint;
use crate::package_variant::pipeline::Placed;

/// Most entries listed per clause; the rest are counted.
pub const SHOWN: usize = 20;

/// What a run did, as the summary reports it.
pub struct Summary<'a> {
    pub name: &'a str,
    pub spec: &'a PackageVariantSpec,
    /// Where the variant's functions are in the Kptfile's pipeline.
    pub placed: &'a Placed,
    /// Every injection point, in order.
    pub points: &'a [InjectionPoint],
    /// Whether the Kptfile's gates and conditions were (re)written for the points.
    pub conditions: bool,
    /// The extension's owned resources added and removed.
    pub owned_added: usize,
    pub owned_removed: usize,
    /// Items whose text changes (edited, added or removed package items).
    pub changed: usize,
}

/// `[a, b, and 3 more]`: the first [`SHOWN`] of `entries` as `show` writes them, then a count
/// of the rest (which are counted, never written: a wide list costs no text).
fn listed<T>(entries: impl Iterator<Item = T>, show: impl Fn(T) -> String) -> String {
    let mut s = String::from("[");
    let mut n = 0usize;
    for e in entries {
        if n < SHOWN {
            if n > 0 {
                s.push_str(", ");
            }
            s.push_str(&show(e));
        }
        n += 1;
    }
    if n > SHOWN {
        s.push_str(&format!(", and {} more", n - SHOWN));
    }
    s.push(']');
    s
}

impl Summary<'_> {
    /// The summary result (info, on the PackageVariant).
    pub fn result(&self) -> ResultItem {
        let mut clauses: Vec<String> = Vec::new();
        if let Some(pc) = &self.spec.package_context {
            let mut c = Vec::new();
            if !pc.data.is_empty() {
                c.push(format!("set {}", listed(pc.data.keys(), |k| k.clone())));
            }
            if !pc.remove_keys.is_empty() {
                c.push(format!(
                    "removed {}",
                    listed(pc.remove_keys.iter(), |k| k.clone())
                ));
            }
            if !c.is_empty() {
                clauses.push(format!("context {}", c.join(" ")));
            }
        }
        let fns = &self.placed.functions;
        if !fns.is_empty() {
            clauses.push(format!(
                "pipeline {}",
                listed(fns.iter(), |(list, at, name)| format!(
                    "{list}[{at}] {name}"
                ))
            ));
        } else if self.placed.earlier > 0 {
            // Only a cleanup says so: a run that puts its functions back took them out too.
            clauses.push(format!("pipeline removed {} earlier", self.placed.earlier));
        }
        let points = self.points;
        let injected = || points.iter().filter(|p| p.injected.is_some());
        if injected().next().is_some() {
            clauses.push(format!(
                "injected {}",
                listed(injected(), |p: &InjectionPoint| format!(
                    "{} <- {:?}",
                    p.describe,
                    p.injected.as_deref().unwrap_or("")
                ))
            ));
        }
        if self.conditions && !points.is_empty() {
            let gates = || points.iter().filter(|p| p.required);
            if gates().next().is_some() {
                clauses.push(format!(
                    "readiness gates {}",
                    listed(gates(), |p: &InjectionPoint| p.condition_type.clone())
                ));
            }
            clauses.push(format!(
                "conditions {}",
                listed(points.iter(), |p: &InjectionPoint| format!(
                    "{}={}",
                    p.condition_type,
                    if p.injected.is_some() {
                        "True"
                    } else {
                        "False"
                    }
                ))
            ));
        }
        if self.owned_added + self.owned_removed > 0 {
            clauses.push(format!(
                "owned resources added {} removed {}",
                self.owned_added, self.owned_removed
            ));
        }
        clauses.push(match self.changed {
            0 => "no change".to_string(),
            1 => "1 item changed".to_string(),
            n => format!("{n} items changed"),
        });
        ResultItem::info(format!(
            "PackageVariant {:?}: {}",
            self.name,
            clauses.join("; ")
        ))
        .on_config()
    }
}

#[cfg(test)]
mod tests {
    use super::listed;

    #[test]
    fn lists_show_twenty_and_count_the_rest() {
        let show = |i: usize| format!("k{i}");
        assert_eq!(listed(0..0, show), "[]");
        assert_eq!(listed(0..1, show), "[k0]");
        let s = listed(0..25, show);
        assert!(s.starts_with("[k0, k1,"), "{s}");
        assert!(s.ends_with("k19, and 5 more]"), "{s}");
    }
}
