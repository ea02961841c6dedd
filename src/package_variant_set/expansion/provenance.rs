//! Which field of the set produced each downstream repo and package, and the checks on the
//! PackageVariants they make.
//!
//! Why: a generated PackageVariant is named `<set>-<repo>-<package>`; when that name cannot
//! exist (upper case, `/`, `..`), or the downstream is empty, or two downstreams make one
//! variant, the problem is reported on the field that made it (a `packageNames` entry, a
//! selector and the object it chose, a template expression), before anything is written.

use std::collections::HashSet;

use super::dotted_names;
use super::inputs::Item;
use super::naming;
use super::targets::DownstreamContext;
use crate::api::names;
use crate::api::package_variant::Downstream;
use crate::api::package_variant_set::{PackageVariantSet, Target};
use crate::krm::results::ResultItem;

/// One rendered downstream, and the target and context that made it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Rendered {
    /// Index of the target in `spec.targets`.
    pub target: usize,
    /// Index of the downstream context.
    pub context: usize,
    pub downstream: Downstream,
    /// Where its render's values start in the run's records.
    pub record: usize,
    /// Which of the set's upstreams it is made from.
    pub upstream: usize,
}

/// Where one downstream comes from: the set, its context and the items.
pub struct Origin<'a> {
    pub set: &'a PackageVariantSet,
    pub ctx: &'a DownstreamContext,
    pub items: &'a [Item<'a>],
}

/// One side of a problem: the field that produced it, and the object a selector chose.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Side {
    /// `spec.targets[1].repositorySelector`.
    pub field: String,
    /// `Repository "edge1"`, for a selector target.
    pub object: Option<String>,
    /// ` through spec.targets[1].template.downstream.repoExpr`, when a template changed it.
    pub via: String,
}

impl Side {
    /// A side named by its field alone.
    pub fn at(field: impl Into<String>) -> Side {
        Side {
            field: field.into(),
            object: None,
            via: String::new(),
        }
    }

    /// `spec.targets[1].repositorySelector (Repository "edge1")`.
    pub fn text(&self) -> String {
        self.text_with("")
    }

    /// [`Side::text`] with more said in its parentheses:
    /// `spec.targets[1].repositorySelector (Repository "edge1", downstream "edge1"/"base")`.
    pub fn text_with(&self, more: &str) -> String {
        let inside: Vec<&str> = [self.object.as_deref().unwrap_or(""), more]
            .into_iter()
            .filter(|s| !s.is_empty())
            .collect();
        if inside.is_empty() {
            format!("{}{}", self.field, self.via)
        } else {
            format!("{} ({}){}", self.field, inside.join(", "), self.via)
        }
    }
}

impl Origin<'_> {
    fn target(&self) -> Option<&Target> {
        self.set.spec.targets.get(self.ctx.target)
    }

    fn prefix(&self) -> String {
        format!("spec.targets[{}]", self.ctx.target)
    }

    /// The template field that set the downstream `repo` or `package`, if one did (an
    /// expression wins over a value; empty counts as unset, as in rendering).
    fn template_field(&self, value: &str) -> Option<String> {
        let d = self.target()?.template.as_ref()?.downstream.as_ref()?;
        let (plain, expr) = if value == "repo" {
            (&d.repo, &d.repo_expr)
        } else {
            (&d.package, &d.package_expr)
        };
        let set = |s: &Option<String>| s.as_deref().is_some_and(|s| !s.is_empty());
        let name = if set(expr) {
            format!("{value}Expr")
        } else if set(plain) {
            value.to_string()
        } else {
            return None;
        };
        Some(format!("{}.template.downstream.{name}", self.prefix()))
    }

    /// The selector field of a selector target and the object it chose.
    fn selected(&self) -> Option<Side> {
        let target = self.target()?;
        let field = if target.repository_selector.is_some() {
            "repositorySelector"
        } else {
            "objectSelector"
        };
        let field = format!("{}.{field}", self.prefix());
        let object = self.ctx.object.and_then(|i| self.items.get(i));
        let kind = object.map_or("", Item::kind);
        let name = object.map_or("", Item::name);
        Some(Side {
            field,
            object: Some(format!("{kind} {name:?}")),
            via: String::new(),
        })
    }

    /// The entry of the target that made this downstream, before any template.
    pub fn entry(&self) -> Side {
        match self.ctx.entry {
            Some(e) => {
                let mut field = format!("{}.repositories[{}]", self.prefix(), e.index);
                if let Some(k) = e.package_name {
                    field.push_str(&format!(".packageNames[{k}]"));
                }
                Side::at(field)
            }
            None => self.selected().unwrap_or_else(|| Side::at(self.prefix())),
        }
    }

    /// The field that gave the downstream repo.
    pub fn repo(&self) -> Side {
        if let Some(field) = self.template_field("repo") {
            return Side::at(field);
        }
        match self.ctx.entry {
            Some(e) => Side::at(format!("{}.repositories[{}].name", self.prefix(), e.index)),
            None => self.entry(),
        }
    }

    /// The field that gave the downstream package.
    pub fn package(&self) -> Side {
        if let Some(field) = self.template_field("package") {
            return Side::at(field);
        }
        match self.ctx.entry {
            Some(e) if e.package_name.is_some() => self.entry(),
            _ if self.set.spec.upstreams.is_some() => {
                Side::at(format!("spec.upstreams[{}].package", self.ctx.upstream))
            }
            _ => Side::at("spec.upstream.package"),
        }
    }

    /// How a clash message names this downstream: its entry, and the template fields that
    /// changed it.
    pub fn describe(&self) -> Side {
        let mut side = self.entry();
        let via: Vec<String> = ["repo", "package"]
            .iter()
            .filter_map(|v| self.template_field(v))
            .collect();
        if !via.is_empty() {
            side.via = format!(" through {}", via.join(" and "));
        }
        // The extension's several upstreams: which one it is made from.
        if self.set.spec.upstreams.is_some() {
            side.via
                .push_str(&format!(" for spec.upstreams[{}]", self.ctx.upstream));
        }
        side
    }
}

/// Every rendered downstream whose PackageVariant could not exist: an empty repo or package
/// (Porch's PackageVariant validation would refuse it), or a name that is not a DNS-1123
/// subdomain. One error per downstream, on the field that produced the problem, and one per
/// field and value (a constant template value or the upstream package is reported once).
pub fn check_downstreams(
    set: &PackageVariantSet,
    contexts: &[DownstreamContext],
    rendered: &[Rendered],
    items: &[Item],
) -> Vec<ResultItem> {
    let mut out = Vec::new();
    let mut reported: HashSet<(String, String)> = HashSet::new();
    for r in rendered {
        let Some(ctx) = contexts.get(r.context) else {
            continue;
        };
        let (repo, package) = (r.downstream.repo.as_str(), r.downstream.package.as_str());
        let origin = Origin { set, ctx, items };
        if let Some((side, value, message)) =
            downstream_problem(&set.metadata.name, repo, package, &origin)
        {
            if reported.insert((side.field.clone(), value.to_string())) {
                out.push(ResultItem::error(message).field(side.field).on_config());
            }
        }
    }
    out
}

/// The first problem of one downstream: the side that made it, the offending value, and the
/// message. Nothing is built for a downstream without a problem.
///
/// The PackageVariant's name is checked as the PackageVariant function checks it
/// ([`dotted_names::name_problem`]: a name Kubernetes takes, without `.` when the target's
/// variants have pipeline functions), and the problem is put on the part of the name that
/// holds it. A part that holds what no name can have, cut off a long name by Porch's 63-byte
/// cut, is reported as the part's own problem, naming the uncut identifier: the cut name
/// itself is valid.
fn downstream_problem<'v>(
    set_name: &'v str,
    repo: &'v str,
    package: &'v str,
    origin: &Origin,
) -> Option<(Side, &'v str, String)> {
    let side_of = |what: &str| {
        if what == "repo" {
            origin.repo()
        } else {
            origin.package()
        }
    };
    let from = |side: &Side| match &side.object {
        Some(o) => format!("the selected {o} "),
        None => String::new(),
    };
    for (value, what) in [(repo, "repo"), (package, "package")] {
        if value.is_empty() {
            let side = side_of(what);
            let message = format!(
                "{}gives an empty downstream {what}: Porch would refuse the PackageVariant (missing required field spec.downstream.{what})",
                from(&side)
            );
            return Some((side, value, message));
        }
    }
    // The common case, decided without building the name: parts of lower-case letters,
    // digits and '-' (the set's name is a valid name, so it starts with one) make a valid
    // name, save a short one ending with '-'; a cut one ends with its hash. A '.' anywhere,
    // the set's name included, may sit at the cut: such a name is built and checked.
    let plain = |s: &str| {
        s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
    };
    let long = set_name.len() + repo.len() + package.len() + 2 > naming::MAX_NAME_LEN;
    if plain(set_name) && plain(repo) && plain(package) && (long || !package.ends_with('-')) {
        return None;
    }
    let identifier = naming::identifier(set_name, repo, package);
    let name = naming::package_variant_name(&identifier);
    let cut = name != identifier;
    let functions = dotted_names::target_has_functions(origin.set, origin.ctx.target);
    if let Some(why) = dotted_names::name_problem(origin.set, origin.ctx.target, &name) {
        // The part of the name that holds the problem.
        let at = dotted_names::problem_at(&name, functions);
        if at < set_name.len() {
            // In the set's own name (valid alone): Porch's cut left its '.' before the '-'
            // and the hash. A dotted set name refused for pipeline functions was refused on
            // `metadata.name` before any render (`validation::api_server`).
            let why = names::dns1123_subdomain(&name).unwrap_or(why);
            let message = format!(
                "the set's name {set_name:?} makes the PackageVariant name {name:?} (cut from {identifier:?}) invalid: {why}; Kubernetes would refuse it. Porch keeps the first {n} bytes of a longer name, then '-' and a hash: rename the set so that its byte {n} is not \".\", or shorter",
                n = naming::PREFIX_LEN
            );
            return Some((Side::at("metadata.name"), set_name, message));
        }
        let repo_at = set_name.len() + 1;
        let (value, what) = if at < repo_at + repo.len() {
            (repo, "repo")
        } else {
            (package, "package")
        };
        let side = side_of(what);
        let cut_from = if cut {
            format!(" (cut from {identifier:?})")
        } else {
            String::new()
        };
        // A part malformed in itself is said as such; a '.' that only separates words is
        // the PackageVariant function's rule.
        let part_why = names::name_part_problem(value, what == "package");
        let message = if functions && name.contains('.') && part_why.is_none() {
            format!(
                "{}gives the downstream {what} {value:?}, which makes the PackageVariant name {name:?}{cut_from}: PackageVariant name {name:?} {why}; the PackageVariant function refuses it, so the set does not make it; {}",
                from(&side),
                dotted_names::fix(origin.ctx.target, what)
            )
        } else {
            // What Kubernetes refuses, said of the part where the part says it best.
            let why = part_why
                .or_else(|| names::dns1123_subdomain(&name))
                .unwrap_or(why);
            format!(
                "{}gives the downstream {what} {value:?}, which makes the PackageVariant name {name:?}{cut_from} invalid: {why}; Kubernetes would refuse it",
                from(&side)
            )
        };
        return Some((side, value, message));
    }
    for (value, what) in [(repo, "repo"), (package, "package")] {
        if let Some(why) = names::name_part_problem(value, what == "package") {
            // Only where Porch cut the name can a bad part leave it valid.
            let side = side_of(what);
            let message = format!(
                "{}gives the downstream {what} {value:?}, which no PackageVariant name can hold: {why}. The identifier {identifier:?} holds it; Porch cuts that to the valid name {name:?} here, but the same {what} makes a name Kubernetes refuses wherever the identifier is short enough to be the name",
                from(&side)
            );
            return Some((side, value, message));
        }
    }
    None
}
