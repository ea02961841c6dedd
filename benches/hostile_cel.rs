//! Hostile CEL in PackageVariantSet templates (issue 20), timed at 1x, 4x and 16x their base
//! size through the release binary: each is refused within the run's CEL budgets, so time and
//! peak memory stay flat however many targets there are. Peak RSS comes from `/usr/bin/time`
//! when present; the bound is 8 x input + 64 MiB.
//!
//! ```text
//! cargo bench --bench hostile_cel          # every workload, median of 3 runs
//! cargo bench --bench hostile_cel -- regex # the workloads whose name contains "regex"
//! ```

#[path = "support/hostile_cel.rs"]
mod hostile_cel;
#[path = "support/hostile_table.rs"]
mod hostile_table;

fn main() {
    hostile_table::print(hostile_cel::WORKLOADS.iter());
}
