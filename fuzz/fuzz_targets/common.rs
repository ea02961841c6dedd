//! Shared checks: the function must never panic, and whatever it writes must be a ResourceList
//! that it can read again with the same number of items (on errors, the input's items). Every
//! input is also read keeping each item's tree and skimming it (what a large input gets):
//! the two readings must agree.

use package_variant::krm::resource_list::compare_readings;
use package_variant::{process_here, Outcome};

pub fn check(input: &[u8]) -> Outcome {
    if let Ok(text) = std::str::from_utf8(input) {
        if let Err(why) = compare_readings(text) {
            panic!("skimming changed the reading: {why}");
        }
    }
    let out = process_here(input);
    assert!(out.exit_code == 0 || out.exit_code == 1, "exit code {}", out.exit_code);
    if out.stdout.is_empty() {
        assert_eq!(out.exit_code, 1, "no output must mean failure");
        assert!(!out.stderr.is_empty(), "failure without a message");
        return out;
    }
    // The output must itself be a readable ResourceList.
    let again = process_here(out.stdout.as_bytes());
    assert!(
        again.stdout.len() > 0 || !again.stderr.contains("not valid YAML"),
        "output is not valid YAML: {}\n---\n{}",
        again.stderr,
        out.stdout
    );
    out
}
