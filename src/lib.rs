//! package-variant: a KRM function that applies Porch's PackageVariant mutations to a package
//! and expands PackageVariantSets into PackageVariants.
//!
//! [`process`] is the whole function: ResourceList bytes in, ResourceList text out, plus the
//! exit code. The binary only moves bytes between it and stdin/stdout.

pub mod api;
pub mod cel_env;
pub mod context;
pub mod dispatch;
pub mod expander;
pub mod injection;
pub mod kptfile;
pub mod naming;
pub mod object;
pub mod package;
pub mod package_variant;
pub mod package_variant_set;
pub mod pipeline;
pub mod pv_validation;
pub mod pvs_validation;
pub mod reconciliation;
pub mod resource_list;
pub mod results;
pub mod selector;
pub mod targets;
pub mod templates;
pub mod yaml;

use resource_list::{Changes, ResourceList};
use results::has_errors;

/// Stack size of the thread that does the work: parsing, editing and emitting recurse once per
/// nesting level (bounded by [`yaml::parse::MAX_DEPTH`]), and debug builds use large frames.
pub const STACK_SIZE: usize = 64 * 1024 * 1024;

/// What the function writes and how it exits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Outcome {
    /// The output ResourceList (empty when the input was not one).
    pub stdout: String,
    /// A one-line message when the input was not a ResourceList.
    pub stderr: String,
    /// 0 on success, 1 on any error result or unreadable input.
    pub exit_code: i32,
}

/// Runs the function on a ResourceList.
pub fn process(input: Vec<u8>) -> Outcome {
    // Own thread: a stack large enough for the deepest document we accept, in debug builds too.
    match std::thread::Builder::new()
        .stack_size(STACK_SIZE)
        .spawn(move || process_here(&input))
        .map(|h| h.join())
    {
        Ok(Ok(outcome)) => outcome,
        _ => Outcome {
            stdout: String::new(),
            stderr: "package-variant: internal error while processing the input".to_string(),
            exit_code: 1,
        },
    }
}

/// [`process`] on the current thread (its stack must be [`STACK_SIZE`] for hostile input).
pub fn process_here(input: &[u8]) -> Outcome {
    if let Err(e) = resource_list::check_size(input.len()) {
        return fatal(e.0);
    }
    let src = match std::str::from_utf8(input) {
        Ok(s) => s,
        Err(e) => {
            return fatal(format!(
                "input is not valid UTF-8 (invalid byte at offset {})",
                e.valid_up_to()
            ))
        }
    };
    let rl = match ResourceList::parse(src) {
        Ok(rl) => rl,
        Err(e) => return fatal(e.0),
    };
    let (changes, mut results) = match not_objects(&rl) {
        errors if !errors.is_empty() => (Changes::default(), errors),
        _ => dispatch::run(&rl),
    };
    rl.resolve(&mut results);
    if has_errors(&results) {
        Outcome {
            stdout: rl.emit(&Changes::default(), &results),
            stderr: String::new(),
            exit_code: 1,
        }
    } else {
        Outcome {
            stdout: rl.emit(&changes, &results),
            stderr: String::new(),
            exit_code: 0,
        }
    }
}

/// Items must be objects (mappings); anything else is reported and the run fails.
fn not_objects(rl: &ResourceList) -> Vec<results::ResultItem> {
    rl.items
        .iter()
        .enumerate()
        .filter(|(_, slot)| !slot.meta.is_object)
        .map(|(i, _)| {
            results::ResultItem::error(format!(
                "items[{i}] is not an object (a KRM resource must be a mapping with apiVersion, kind and metadata)"
            ))
            .field(format!("items[{i}]"))
        })
        .collect()
}

fn fatal(message: String) -> Outcome {
    Outcome {
        stdout: String::new(),
        stderr: format!("package-variant: {message}"),
        exit_code: 1,
    }
}
