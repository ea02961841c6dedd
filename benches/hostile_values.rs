//! Hostile inputs of the values half of the YAML layer and of config injection
//! (`support/hostile_injection.rs`) and its sources (`support/hostile_sources.rs`), timed at 1x, 4x and 16x
//! their base size through the release binary: seconds per MB stay flat when a step is linear
//! (a quadratic one grows 4x per row). Peak RSS comes from `/usr/bin/time` when present.
//!
//! ```text
//! cargo bench --bench hostile_values     # every workload, median of 3 runs
//! cargo bench --bench hostile_values -- merge  # the workloads whose name contains "merge"
//! ```

#[path = "support/hostile_injection.rs"]
mod hostile_injection;
#[path = "support/hostile_sources.rs"]
mod hostile_sources;
#[path = "support/hostile_table.rs"]
mod hostile_table;
#[path = "support/hostile_values.rs"]
mod hostile_values;

fn main() {
    // The values half of the YAML layer, then config injection.
    hostile_table::print(
        hostile_values::WORKLOADS
            .iter()
            .chain(hostile_injection::WORKLOADS)
            .chain(hostile_sources::WORKLOADS),
    );
}
