//! Writes the benchmark workloads (see `support/workloads.rs`) for `benches/run.sh`:
//!
//! ```text
//! cargo bench --bench gen -- w1 ITEMS FILE     # W1 ResourceList (PackageVariant)
//! cargo bench --bench gen -- w1-floor ITEMS W1_OUTPUT FILE  # W1 output + in-cluster objects
//! cargo bench --bench gen -- w2 REPOS FILE     # W2 ResourceList (PackageVariantSet)
//! cargo bench --bench gen -- w2-rollout REPOS FILE  # W2 with the extension's spec.rollout
//! cargo bench --bench gen -- w2-tag REPOS FILE # W2 following a floating tag (the extension's set)
//! cargo bench --bench gen -- w2-tag-manual REPOS FILE # w2-tag, Manual, the tag's revision activated
//! cargo bench --bench gen -- w2-tag-offer REPOS FILE  # w2-tag, Manual, nothing activated
//! cargo bench --bench gen -- w3 FILE           # W3 ResourceList (20 resources)
//! cargo bench --bench gen -- w3-config FILE    # W3's PackageVariant alone (kpt --fn-config)
//! cargo bench --bench gen -- hostile-value NAME N FILE  # a workload of support/hostile_*.rs
//! ```
//!
//! Not a benchmark itself: a `harness = false` bench target so it never ships with the product.

#[path = "support/workloads.rs"]
mod workloads;

#[path = "support/hostile_injection.rs"]
mod hostile_injection;
#[path = "support/hostile_sources.rs"]
mod hostile_sources;
#[path = "support/hostile_values.rs"]
mod hostile_values;

use std::process::exit;

fn usage() -> ! {
    eprintln!(
        "usage: gen (w1 ITEMS | w2 REPOSITORIES | w2-tag REPOSITORIES | w2-tag-manual REPOSITORIES | w2-tag-offer REPOSITORIES | w2-rollout REPOSITORIES) FILE | gen w1-floor ITEMS W1_OUTPUT FILE | gen (w3 | w3-config) FILE | gen hostile-value NAME N FILE"
    );
    exit(2)
}

fn main() {
    // `cargo bench` appends `--bench`.
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| a != "--bench")
        .collect();
    if args.is_empty() {
        // `cargo test --benches` runs every bench target without arguments: nothing to write.
        eprintln!("gen: nothing to do (see --help)");
        return;
    }
    let count = |s: &str| s.parse::<usize>().unwrap_or_else(|_| usage());
    let (text, file) = match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["w1", n, file] => (workloads::w1(workloads::W1::with_items(count(n))), file),
        ["w1-floor", n, output, file] => {
            let output = std::fs::read_to_string(output).unwrap_or_else(|e| {
                eprintln!("gen: cannot read {output}: {e}");
                exit(1)
            });
            (
                workloads::w1_floor(&output, workloads::W1::with_items(count(n))),
                file,
            )
        }
        ["w2", n, file] => (
            workloads::w2(workloads::W2::with_repositories(count(n))),
            file,
        ),
        ["w2-rollout", n, file] => (
            workloads::w2_rollout(workloads::W2::with_repositories(count(n))),
            file,
        ),
        ["w2-tag", n, file] => (
            workloads::w2_tagged(workloads::W2::with_repositories(count(n))),
            file,
        ),
        ["w2-tag-manual", n, file] => (
            workloads::w2_tagged_manual(workloads::W2::with_repositories(count(n)), Some("3")),
            file,
        ),
        ["w2-tag-offer", n, file] => (
            workloads::w2_tagged_manual(workloads::W2::with_repositories(count(n)), None),
            file,
        ),
        ["w3", file] => (workloads::w3(), file),
        ["w3-config", file] => (workloads::w1_package_variant(0), file),
        ["hostile-value", name, n, file] => {
            // The workload named exactly, else the only one whose name contains NAME: a
            // substring of several names once measured the wrong workload silently.
            let all: Vec<_> = hostile_values::WORKLOADS
                .iter()
                .chain(hostile_injection::WORKLOADS)
                .chain(hostile_sources::WORKLOADS)
                .collect();
            let exact = all.iter().find(|(w, _, _)| *w == name);
            let partial: Vec<_> = all.iter().filter(|(w, _, _)| w.contains(name)).collect();
            let generate = match (exact, partial.as_slice()) {
                (Some((_, generate, _)), _) | (None, [(_, generate, _)]) => generate,
                (None, []) => usage(),
                (None, several) => {
                    let names: Vec<&str> = several.iter().map(|(w, _, _)| *w).collect();
                    eprintln!("gen: {name:?} names several workloads: {names:?}; write one whole");
                    exit(2)
                }
            };
            (generate(count(n)), file)
        }
        _ => usage(),
    };
    if let Err(e) = std::fs::write(file, text) {
        eprintln!("gen: cannot write {file}: {e}");
        exit(1);
    }
}
