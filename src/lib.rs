//! package-variant: a KRM function that applies Porch's PackageVariant mutations to a package
//! and expands PackageVariantSets into PackageVariants.
//!
//! [`process`] is the whole function: ResourceList bytes in, ResourceList text out, plus the
//! exit code. The binary only moves bytes between it and stdin/stdout.

pub mod api;
pub mod cel;
pub(crate) mod common;
pub mod krm;
pub mod package_variant;
pub mod package_variant_set;
pub mod yaml;

use api::package_variant::{
    EXTENSION_API_VERSION, PACKAGE_VARIANT_API_VERSION, PACKAGE_VARIANT_KIND,
};
use api::package_variant_set::{PACKAGE_VARIANT_SET_API_VERSION, PACKAGE_VARIANT_SET_KIND};
use krm::dispatch::Function;
pub use krm::run::{on_work_stack, Outcome, STACK_SIZE};

/// The functionConfig kinds this binary serves, in the order messages list them.
pub const FUNCTIONS: &[Function] = &[
    Function {
        api_version: PACKAGE_VARIANT_API_VERSION,
        kind: PACKAGE_VARIANT_KIND,
        described: "PackageVariant (apiVersion config.porch.kpt.dev/v1alpha1)",
        extension: false,
        run: package_variant::run,
    },
    Function {
        api_version: PACKAGE_VARIANT_SET_API_VERSION,
        kind: PACKAGE_VARIANT_SET_KIND,
        described: "PackageVariantSet (apiVersion config.porch.kpt.dev/v1alpha2)",
        extension: false,
        run: package_variant_set::run,
    },
    Function {
        api_version: "v1",
        kind: "ConfigMap",
        described: "a ConfigMap of package context data",
        extension: false,
        run: package_variant::run_config_map,
    },
    // The extension kinds: the same functions, over Porch's fields plus this function's own.
    Function {
        api_version: EXTENSION_API_VERSION,
        kind: PACKAGE_VARIANT_KIND,
        described: "PackageVariant (apiVersion fn.kpt.dev/v1alpha1)",
        extension: true,
        run: package_variant::run,
    },
    Function {
        api_version: EXTENSION_API_VERSION,
        kind: PACKAGE_VARIANT_SET_KIND,
        described: "PackageVariantSet (apiVersion fn.kpt.dev/v1alpha1)",
        extension: true,
        run: package_variant_set::run,
    },
];

/// Runs the function on a ResourceList.
///
/// ```
/// let input = "\
/// apiVersion: config.kubernetes.io/v1
/// kind: ResourceList
/// items:
/// - apiVersion: v1
///   kind: ConfigMap
///   metadata:
///     name: kptfile.kpt.dev
///     annotations:
///       config.kubernetes.io/path: package-context.yaml
///   data:
///     name: my-pkg
///     zip: \"0123\" # stays a quoted string
/// functionConfig:
///   apiVersion: v1
///   kind: ConfigMap
///   metadata:
///     name: function-input
///   data:
///     region: us-east1
/// ";
/// let out = package_variant::process(input.as_bytes().to_vec());
/// assert_eq!(out.exit_code, 0);
/// assert!(out.stdout.contains("    zip: \"0123\" # stays a quoted string\n    region: us-east1\n"));
/// ```
pub fn process(input: Vec<u8>) -> Outcome {
    krm::run::process(input, FUNCTIONS)
}

/// [`process`] on the current thread (its stack must be [`STACK_SIZE`] for hostile input).
pub fn process_here(input: &[u8]) -> Outcome {
    krm::run::process_here(input, FUNCTIONS)
}

/// What the binary does: [`process`], the outcome written to stdout and stderr, and the process
/// ended with its exit code (see [`krm::run::run_and_exit`]).
pub fn run_and_exit(input: Vec<u8>, stdout: krm::run::start::Stdout) -> ! {
    // The parts that parse CEL on the work's stack check it first.
    common::stack::set_work_stack(yaml::node::work_stack());
    krm::run::run_and_exit(input, FUNCTIONS, stdout)
}
