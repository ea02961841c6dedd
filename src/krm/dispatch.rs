//! Dispatch: picks the function from the functionConfig's apiVersion and kind.
//!
//! The table of functions comes from the crate root, so this layer depends on neither function.

use crate::krm::object::MetaRecord;
use crate::krm::resource_list::{Changes, ResourceList};
use crate::krm::results::ResultItem;
use crate::yaml::Node;
use std::borrow::Cow;

/// A function's entry point: the ResourceList and its functionConfig in, the changes to the
/// items and the results out. The functionConfig comes owned when the ResourceList gave it up
/// ([`ResourceList::detach_function_config`]): the function drops it once it is decoded.
pub type Run = fn(&ResourceList, Cow<Node>) -> (Changes, Vec<ResultItem>);

/// One functionConfig kind the binary serves.
pub struct Function {
    /// The functionConfig's `apiVersion`.
    pub api_version: &'static str,
    /// The functionConfig's `kind`.
    pub kind: &'static str,
    /// How messages name it: `PackageVariant (apiVersion config.porch.kpt.dev/v1alpha1)`.
    pub described: &'static str,
    /// An extension kind of this function (`fn.kpt.dev/v1alpha1`): served, but left out of the
    /// kinds an error lists as expected, which are Porch's (`--help` lists the extensions).
    pub extension: bool,
    pub run: Run,
}

/// Runs the function of `functions` that the functionConfig asks for.
pub fn run(rl: &ResourceList, functions: &[Function]) -> (Changes, Vec<ResultItem>) {
    run_with(rl, rl.function_config().map(Cow::Borrowed), functions)
}

/// [`run`] with the functionConfig given apart from the list (taken out of it).
pub fn run_with(
    rl: &ResourceList,
    config: Option<Cow<Node>>,
    functions: &[Function],
) -> (Changes, Vec<ResultItem>) {
    let accepted = accepted(functions);
    let Some(config) = config else {
        return fail(
            ResultItem::error(format!(
                "no functionConfig was given; {accepted}{HOW_TO_GIVE}"
            ))
            .field("functionConfig"),
        );
    };
    let record = MetaRecord::from_node(&config);
    let meta = record.view();
    if meta.is("v1", "ConfigMap") && is_empty_data(&config) {
        return fail(
            ResultItem::error(format!(
                "no functionConfig was given (kpt sends an empty ConfigMap {:?} when neither \
                 --fn-config nor -- key=value is given); {accepted}{HOW_TO_GIVE}",
                meta.name()
            ))
            .field("data")
            .on_config(),
        );
    }
    if !meta.is_object {
        return fail(
            ResultItem::error(format!("functionConfig is not an object; {accepted}"))
                .field("functionConfig"),
        );
    }
    if let Some(p) = &meta.problem {
        return fail(
            ResultItem::error(format!(
                "cannot read the functionConfig's metadata as kpt reads it: {}; write the value itself",
                p.message
            ))
            .field(p.field.clone())
            .on_config(),
        );
    }
    let (v, k) = (meta.api_version(), meta.kind());
    if let Some(f) = functions.iter().find(|f| f.api_version == v && f.kind == k) {
        return (f.run)(rl, config);
    }
    if let Some(f) = functions.iter().find(|f| f.kind == k) {
        return fail(
            ResultItem::error(format!(
                "{k} apiVersion {v:?} is not served; use {}",
                f.api_version
            ))
            .field("apiVersion")
            .on_config(),
        );
    }
    if v == "v1" && meta.name() == KPT_ARGS_NAME {
        // kpt builds this object from `-- key=value` arguments, and takes a word without `=`
        // for the object's kind: `-- region` was meant as a key, not a kind.
        return fail(
            ResultItem::error(format!(
                "kpt read {k:?} as the functionConfig's kind: a word after -- without =VALUE \
                 names a kind. To set package context data write {k}=VALUE \
                 (kpt fn eval PKG --exec package-variant -- {k}=VALUE); {accepted}"
            ))
            .field("kind")
            .on_config(),
        );
    }
    fail(
        ResultItem::error(format!(
            "functionConfig kind {k:?} (apiVersion {v:?}) is not supported; {accepted}"
        ))
        .field("kind")
        .on_config(),
    )
}

/// `metadata.name` of the functionConfig kpt builds from `-- key=value` arguments.
const KPT_ARGS_NAME: &str = "function-input";

/// The two ways to give a functionConfig with kpt.
const HOW_TO_GIVE: &str =
    ": pass one with --fn-config FILE, or set package context data with -- key=value";

/// kpt's stand-in for "no functionConfig": a ConfigMap whose `data` is absent, null or empty.
/// There is nothing to do with it, so it is refused like no functionConfig at all.
fn is_empty_data(config: &Node) -> bool {
    config
        .get("data")
        .is_none_or(|d| d.is_null() || d.entries().is_some_and(|e| e.is_empty()))
}

/// `expected kind A, B, or C`.
fn accepted(functions: &[Function]) -> String {
    let names: Vec<&str> = functions
        .iter()
        .filter(|f| !f.extension)
        .map(|f| f.described)
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => {
            format!("expected kind {}, or {last}", rest.join(", "))
        }
        Some((last, _)) => format!("expected kind {last}"),
        None => "no function is served".to_string(),
    }
}

fn fail(r: ResultItem) -> (Changes, Vec<ResultItem>) {
    (Changes::default(), vec![r])
}
