//! The PackageVariant function: applies a PackageVariant's package mutations to the package in
//! `items`, in Porch's order (package context, Kptfile pipeline, config injection, then the
//! Kptfile's conditions and readiness gates), all or nothing.
//!
//! Any error stops the run: its errors are returned with the warnings and infos found before
//! it (which often explain it), and the protocol layer writes the items back exactly as they
//! came. A run that succeeds puts one summary of what it set first among its results (after
//! the severity sort, the first info: warnings come before it) ([`summary`]). Every step leaves equal values untouched, so a second run on the output
//! changes nothing.
//!
//! Here: the steps ([`context`], [`pipeline`], [`injection`], [`kptfile`]), the checks of the
//! spec ([`validation`]), the package as the function sees it ([`package`]) and the edits of its
//! trees ([`edits`]). Not here: the typed spec (`crate::api`), the protocol (`crate::krm`), and
//! anything of PackageVariantSets.

pub mod binding;
pub mod cluster_objects;
pub mod context;
pub mod edits;
pub mod injection;
pub mod kptfile;
pub mod kptfile_lists;
pub mod kptfile_validation;
pub mod owned;
pub mod package;
pub mod package_resource;
pub mod pipeline;
pub mod placement;
pub mod provenance;
pub mod shared;
pub mod summary;
pub mod unfilled;
pub mod validation;

use crate::api::package_variant::{
    PackageVariantSpec, EXTENSION_API_VERSION, PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND,
};
use crate::api::{check_strict, decode_owned, DecodeError};
use crate::krm::object::{MetaRecord, ObjectMeta};
use crate::krm::resource_list::{Changes, ResourceList};
use crate::krm::results::{ResultItem, LISTED};
use crate::yaml::json::into_json;
use crate::yaml::{to_json, Node};
use cluster_objects::NamedPaths;
use context::ContextEdit;
use injection::InjectionPoint;
use package::Package;
use serde_json::Value;
use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use unfilled::Unfilled;
use validation::{reserved_keys, validate};

/// Namespace of a PackageVariant that names none.
pub const DEFAULT_NAMESPACE: &str = "default";

/// A decoded PackageVariant.
#[derive(Debug, Clone, Default)]
pub struct PackageVariant {
    pub name: String,
    /// `metadata.namespace` as written. When it is, an in-cluster object without a namespace
    /// is not injected (it may come from any namespace).
    pub written_namespace: Option<String>,
    pub spec: PackageVariantSpec,
    /// True for the extension kind (`fn.kpt.dev/v1alpha1`): its owned resources are kept in
    /// step with `spec.injection` ([`owned`]); Porch's kind never touches them.
    pub extension: bool,
}

impl PackageVariant {
    /// `metadata.namespace`, or `default`.
    pub fn namespace(&self) -> &str {
        self.written_namespace
            .as_deref()
            .unwrap_or(DEFAULT_NAMESPACE)
    }

    /// Decodes the functionConfig strictly: every unknown field and wrong type is an error
    /// result with its field path, in document order, and nothing is decoded then.
    pub fn decode(config: &Node) -> Result<PackageVariant, Vec<ResultItem>> {
        let json = Self::json_of(Cow::Borrowed(config))?;
        Self::from_json(MetaRecord::from_node(config).view(), json)
    }

    /// The functionConfig's JSON; an owned tree is released as it is read.
    fn json_of(config: Cow<Node>) -> Result<Value, Vec<ResultItem>> {
        match config {
            Cow::Owned(n) => into_json(n),
            Cow::Borrowed(n) => to_json(n),
        }
        .map_err(|e| {
            vec![ResultItem::error(format!("cannot read the PackageVariant: {e}")).on_config()]
        })
    }

    /// [`PackageVariant::decode`] from the functionConfig's JSON and metadata.
    fn from_json(meta: ObjectMeta, mut json: Value) -> Result<PackageVariant, Vec<ResultItem>> {
        // Porch's kind or the extension's (the dispatch serves only these two): one decoding,
        // against the schema of the apiVersion written.
        let api_version = if meta.api_version() == EXTENSION_API_VERSION {
            EXTENSION_API_VERSION
        } else {
            PACKAGE_VARIANT_API_VERSION
        };
        let problems = check_strict(&json, api_version, PACKAGE_VARIANT_KIND);
        if !problems.is_empty() {
            return Err(problems.into_iter().map(config_error).collect());
        }
        // Taken, not cloned: a wide spec would be held twice.
        let spec_json = json
            .as_object_mut()
            .and_then(|o| o.shift_remove("spec"))
            .unwrap_or(Value::Null);
        drop(json);
        let spec = if spec_json.is_null() {
            PackageVariantSpec::default()
        } else {
            decode_owned::<PackageVariantSpec>(spec_json, "spec")
                .map_err(|e| vec![config_error(e)])?
        };
        Ok(PackageVariant {
            name: meta.name().to_string(),
            written_namespace: meta.namespace().map(str::to_string),
            spec,
            extension: api_version == EXTENSION_API_VERSION,
        })
    }
}

/// A decode problem of the functionConfig as an error result on its field.
fn config_error(e: DecodeError) -> ResultItem {
    let r = ResultItem::error(e.message).on_config();
    if e.path.is_empty() {
        r
    } else {
        r.field(e.path)
    }
}

/// Runs a PackageVariant functionConfig over the items: the changes and the results, the
/// run's summary first; on an error, no change, and the errors with every warning and info
/// found before them.
pub fn run(rl: &ResourceList, config: Cow<Node>) -> (Changes, Vec<ResultItem>) {
    let mut kept = Vec::new();
    match apply(rl, config, &mut kept) {
        Ok((changes, summary)) => {
            kept.insert(0, summary);
            (changes, kept)
        }
        Err(mut errors) => {
            errors.append(&mut kept);
            (Changes::default(), errors)
        }
    }
}

fn one(e: Box<ResultItem>) -> Vec<ResultItem> {
    vec![*e]
}

/// Applies the PackageVariant: the changes and the summary result. Every result that is not an
/// error goes into `results` as it is found, so a later error does not lose it.
fn apply(
    rl: &ResourceList,
    config: Cow<Node>,
    results: &mut Vec<ResultItem>,
) -> Result<(Changes, ResultItem), Vec<ResultItem>> {
    let record = MetaRecord::from_node(&config);
    let meta = record.view();
    // Consumed: a wide functionConfig's tree is not kept beside its JSON and decoded spec.
    let json = PackageVariant::json_of(config)?;
    let pv = PackageVariant::from_json(meta, json)?;
    let problems = validate(&pv.name, &pv.spec);
    if !problems.is_empty() {
        return Err(problems);
    }
    let named = NamedPaths::from_meta(meta).map_err(one)?;
    let unfilled = Unfilled::from_meta(meta).map_err(one)?;
    let mut pkg = Package::new(rl, Some(record.clone()));
    pkg.check_provenance()?;
    results.extend(self_pipeline_warning(&pkg, meta, &pv));

    // 1. Package context.
    if let Some(pc) = &pv.spec.package_context {
        let edit = ContextEdit {
            data: &pc.data,
            remove_keys: &pc.remove_keys,
            field: "spec.packageContext",
        };
        context::apply(&mut pkg, &edit).map_err(one)?;
    }

    // 2. Kptfile pipeline.
    let k = kptfile::find_root(&pkg).map_err(one)?;
    let placement = pv.spec.pipeline_placement.as_ref();
    let placed = pipeline::apply_placed(
        pkg.tree_mut(k).map_err(one)?,
        &pv.name,
        pv.spec.pipeline.as_ref(),
        &|field, others| placement::index(placement, field, others),
    )
    .map_err(|e| vec![ResultItem::error(e.message).field(e.field).on_item(k)])?;

    // 3. Config injection.
    let mut points = injection::find_points(&pkg);
    let errors = injection::validate_points(&points);
    if !errors.is_empty() {
        return Err(errors);
    }
    let (in_cluster, notes) = injection::in_cluster_objects(&pkg, pv.namespace(), &named)?;
    results.extend(notes);
    // The extension's point-keyed injection binds points by name; Porch's injectors fill the
    // others, as they always did.
    let plan = binding::plan(&pkg, &pv.spec.injection, &points)?;
    let (mut bound, unbound): (Vec<_>, Vec<_>) = std::mem::take(&mut points)
        .into_iter()
        .enumerate()
        .partition(|(j, _)| plan.is_bound(*j));
    // Moved, not cloned: a point costs hundreds of bytes, and there may be 100,000s.
    let (unbound_at, mut porch): (Vec<usize>, Vec<InjectionPoint>) = unbound.into_iter().unzip();
    injection::inject(
        &mut pkg,
        pv.written_namespace.as_deref(),
        &pv.spec.injectors,
        &in_cluster,
        &mut porch,
    )
    .map_err(one)?;
    let mut by_entry: Vec<(usize, &mut InjectionPoint)> = bound
        .iter_mut()
        .filter_map(|(j, p)| Some((plan.entry_of_point[*j]?, p)))
        .collect();
    let bound_results = binding::fill(&mut pkg, &pv, &in_cluster, &mut by_entry)?;
    // The bound points' own results, by point; the points back in their order (merged, not
    // sorted: both halves are in order).
    // Each point's index into `bound_results`, not the result itself: a map of 100,000s of
    // results moved into it held them twice while it grew.
    let mut bound_results: Vec<Option<ResultItem>> = bound_results.into_iter().map(Some).collect();
    let mut given: HashMap<usize, usize> = HashMap::with_capacity(bound.len());
    let mut next_result = 0;
    points = if bound.is_empty() {
        porch
    } else {
        let mut merged = Vec::with_capacity(bound.len() + porch.len());
        let mut bound = bound.into_iter().peekable();
        let mut unbound = unbound_at.into_iter().zip(porch).peekable();
        loop {
            let from_bound = match (bound.peek(), unbound.peek()) {
                (Some((a, _)), Some((b, _))) => a < b,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let next = if from_bound {
                bound.next()
            } else {
                unbound.next()
            };
            if let Some((j, p)) = next {
                if from_bound && next_result < bound_results.len() {
                    given.insert(j, next_result);
                    next_result += 1;
                }
                merged.push(p);
            }
        }
        merged
    };
    let point_results = point_results(&pkg, &points, given, &mut bound_results, unfilled);
    drop(bound_results);
    if crate::krm::results::has_errors(&point_results) {
        // `unfilled: error` and a required point left unfilled: the run stops here, the other
        // points' results kept beside the errors.
        let (errors, rest): (Vec<_>, Vec<_>) =
            point_results.into_iter().partition(ResultItem::is_error);
        results.extend(rest);
        return Err(errors);
    }
    results.extend(point_results);
    // The extension's resources without a binding point: added, updated, removed.
    let owned = if pv.extension {
        owned::apply(&mut pkg, &pv, &plan.owned, &in_cluster)?
    } else {
        owned::Outcome::default()
    };
    results.extend(owned.results);

    // 4. Kptfile conditions and readiness gates, then what still blocks readiness.
    let conditions = needs_conditions(&mut pkg, k, &points)?;
    if conditions {
        // A Kptfile read from JSON keeps its lists as trees (they are written in block style).
        let compact = !rl.is_json();
        let (punch, lists) =
            kptfile::set_conditions_and_gates(pkg.tree_mut(k).map_err(one)?, &points, k, compact)
                .map_err(|e| vec![ResultItem::error(e.message).field(e.field).on_item(k)])?;
        results.extend(punch);
        pkg.lists = lists.map(|l| Box::new(l) as Box<dyn crate::krm::resource_list::ItemLists>);
    }
    // The Kptfile as written must be one kpt v1.0.1 reads.
    let (refused, warned): (Vec<_>, Vec<_>) =
        kptfile_validation::check(&mut pkg, k, &pv.name, meta.path())
            .into_iter()
            .partition(ResultItem::is_error);
    if !refused.is_empty() {
        return Err(refused);
    }
    results.extend(warned);
    let mut changes = pkg.into_changes();
    // The in-cluster objects fed through stdin are left out of the output, not changed.
    let changed = changes.edited.len()
        + changes.deferred.as_ref().map_or(0, |d| d.count())
        + owned.added.len()
        + owned.removed.len();
    let summary = summary::Summary {
        name: &pv.name,
        spec: &pv.spec,
        placed: &placed,
        points: &points,
        conditions,
        owned_added: owned.added.len(),
        owned_removed: owned.removed.len(),
        changed,
    }
    .result();
    changes.added.extend(owned.added);
    changes.removed.extend(owned.removed);
    Ok((changes, summary))
}

/// A warning when the PackageVariant is one of the package's own files and its `spec.pipeline`
/// adds functions: run from that package's pipeline (`configPath`), it edits the pipeline kpt
/// is running, and the next render runs the functions it added.
///
/// Which file holds the functionConfig is not in the protocol, so this reads what the inputs
/// show: kpt render (and eval of a file inside the package) passes the functionConfig with its
/// path annotation (`internal.config.kubernetes.io/path`, or the legacy
/// `config.kubernetes.io/path`), and kpt 1.0.0-beta.56 passes the file among the items too
/// (same apiVersion, kind and name). Either counts; a functionConfig given from outside the
/// package has neither. A false alarm costs a warning; a missed one, a pipeline that grows.
fn self_pipeline_warning(
    pkg: &Package,
    meta: ObjectMeta,
    pv: &PackageVariant,
) -> Option<ResultItem> {
    let adds = pv
        .spec
        .pipeline
        .as_ref()
        .is_some_and(|p| !p.mutators.is_empty() || !p.validators.is_empty());
    if !adds {
        return None;
    }
    let file = meta.path().map(str::to_string).or_else(|| {
        (0..pkg.len())
            .find(|&i| pkg.is_config_item(i))
            .map(|i| pkg.location(i))
    })?;
    Some(
        ResultItem::warning(format!(
            "the PackageVariant is one of the package's own files ({file}) and its spec.pipeline \
             adds functions to the package's Kptfile pipeline: run from that pipeline \
             (configPath), it edits the pipeline kpt is running, and the next kpt fn render runs \
             the functions it added; keep spec.pipeline out of a PackageVariant the package runs \
             itself, or keep the PackageVariant outside the package and apply it with kpt fn \
             eval --fn-config"
        ))
        .field("spec.pipeline")
        .on_config(),
    )
}

/// Porch leaves `info` and `status` alone when there are no points and no gates or conditions;
/// otherwise the lists are (re)computed, which is a no-op when they are already right.
fn needs_conditions(
    pkg: &mut Package,
    k: usize,
    points: &[InjectionPoint],
) -> Result<bool, Vec<ResultItem>> {
    if !points.is_empty() {
        return Ok(true);
    }
    let t = pkg.tree(k).map_err(one)?;
    Ok(
        t.path(&["info", "readinessGates"]).is_some()
            || t.path(&["status", "conditions"]).is_some(),
    )
}

/// The results of the points, in point order: of each kind (injected, required or optional
/// not filled) the first [`LISTED`], then one result counting the rest. The Kptfile's
/// `status.conditions` list every point.
/// A point bound by the extension's `injection` comes with its own result (`given`: the
/// point's index into `bound`). Under [`Unfilled::Error`] an unfilled required point is an
/// error.
fn point_results(
    pkg: &Package,
    points: &[InjectionPoint],
    mut given: HashMap<usize, usize>,
    bound: &mut [Option<ResultItem>],
    unfilled: Unfilled,
) -> Vec<ResultItem> {
    let mut out = Vec::new();
    // Injected, required not filled, optional not filled.
    let mut counts = [0usize; 3];
    for (j, p) in points.iter().enumerate() {
        let given = given.remove(&j).and_then(|k| bound.get_mut(k)?.take());
        let kind = match (&p.injected, p.required) {
            (Some(_), _) => 0,
            (None, true) => 1,
            (None, false) => 2,
        };
        counts[kind] += 1;
        if counts[kind] <= LISTED {
            let r = given.unwrap_or_else(|| point_result(pkg, p));
            out.push(if kind == 1 { unfilled.apply(r) } else { r });
        }
    }
    let what = [
        "injection points were injected",
        "required injection points are not filled (each blocks readiness)",
        "optional injection points are not filled",
    ];
    for (kind, &n) in counts.iter().enumerate() {
        if n > LISTED {
            let message = format!(
                "{} more {} (only the first {LISTED} are listed): the Kptfile's \
                 status.conditions list every point, config.injection.<Kind>.<name>",
                n - LISTED,
                what[kind]
            );
            out.push(if kind == 1 {
                unfilled.apply(ResultItem::warning(message))
            } else {
                ResultItem::info(message)
            });
        }
    }
    out
}

/// The result that reports what happened at one injection point.
fn point_result(pkg: &Package, p: &InjectionPoint) -> ResultItem {
    let m = pkg.meta(p.item);
    let what = format!(
        "{} injection point {}",
        if p.required { "required" } else { "optional" },
        m.describe()
    );
    match &p.injected {
        Some(name) => ResultItem::info(format!(
            "{what}: injected {} of in-cluster {} {name:?}",
            p.field.unwrap_or("spec"),
            m.kind()
        ))
        .field(p.field.unwrap_or("spec")),
        None => {
            let mut r = format!("{what} not filled: {}", p.not_injected_message());
            for hint in &p.hints {
                r.push_str("; ");
                r.push_str(hint);
            }
            if p.required {
                ResultItem::warning(r)
            } else {
                ResultItem::info(r)
            }
            .field(injection::ANNOTATION_FIELD)
        }
    }
    .on_item(p.item)
}

/// Runs a `v1` ConfigMap functionConfig (e.g. `kpt fn eval PKG --exec package-variant --
/// region=us`): its `data` is set in the package context, as a PackageVariant's
/// `spec.packageContext.data` would be. The reserved keys `name` and `package-path` are refused.
pub fn run_config_map(rl: &ResourceList, config: Cow<Node>) -> (Changes, Vec<ResultItem>) {
    let config = &*config;
    let problems = match to_json(config) {
        Ok(json) => check_strict(&json, "v1", "ConfigMap"),
        Err(e) => vec![DecodeError {
            path: String::new(),
            message: format!("cannot read the ConfigMap: {e}"),
        }],
    };
    if !problems.is_empty() {
        return (
            Changes::default(),
            problems.into_iter().map(config_error).collect(),
        );
    }
    let data = match config_map_data(config) {
        Ok(d) => d,
        Err(e) => return (Changes::default(), vec![*e]),
    };
    let refused = reserved_keys(&data, &[], "data", "data");
    if !refused.is_empty() {
        return (Changes::default(), refused);
    }
    let mut pkg = Package::new(rl, Some(MetaRecord::from_node(config)));
    if let Err(e) = pkg.check_provenance() {
        return (Changes::default(), e);
    }
    let edit = ContextEdit {
        data: &data,
        remove_keys: &[],
        field: "data",
    };
    match context::apply(&mut pkg, &edit) {
        Ok(()) => (pkg.into_changes(), Vec::new()),
        Err(e) => (Changes::default(), vec![*e]),
    }
}

/// The ConfigMap's `data` as string pairs (scalars of other types by their text).
fn config_map_data(config: &Node) -> Result<BTreeMap<String, String>, Box<ResultItem>> {
    let bad = |msg: String| Box::new(ResultItem::error(msg).field("data").on_config());
    let Some(data) = config.get("data").filter(|d| !d.is_null()) else {
        return Ok(BTreeMap::new());
    };
    let mut out: Vec<(String, String)> = Vec::new();
    let Some(entries) = data.entries() else {
        return Err(bad(format!(
            "ConfigMap data must be a map of strings, found a {}",
            data.kind()
        )));
    };
    for e in entries {
        let Some(key) = e.key.as_str().map(str::to_string) else {
            // An alias as a key (YAML's `*k : v`): write the key itself.
            return Err(bad(
                "ConfigMap data keys must be written out, not given through an alias".to_string(),
            ));
        };
        match e.value.as_scalar() {
            // `~` is no value: neither "" nor the text "~" is surely meant (as in a
            // PackageVariant's packageContext.data).
            Some(_) if e.value.is_null() => {
                return Err(Box::new(
                    ResultItem::error(
                        "invalid type: null, expected a string; write a value (\"\" for an \
                         empty one) or remove the entry",
                    )
                    .field(format!("data.{key}"))
                    .on_config(),
                ))
            }
            Some(s) => out.push((key, s.value.as_str().to_owned())),
            None => {
                return Err(bad(format!(
                    "ConfigMap data {key:?} must be a string, found a {}",
                    e.value.kind()
                )))
            }
        }
    }
    let mut data = BTreeMap::new();
    for (key, value) in out {
        // Only aliases can make two keys of one mapping the same text.
        if data.insert(key.clone(), value).is_some() {
            return Err(bad(format!(
                "ConfigMap data has the key {key:?} twice; keep one"
            )));
        }
    }
    Ok(data)
}
