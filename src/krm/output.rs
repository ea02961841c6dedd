//! The output rule: one run writes at most 8 times its input plus 64 MiB.
//!
//! Why one rule: the paths that write more than they read (one value injected into many
//! points, a template copied into every variant, an alias expanded in place) each had a limit
//! of their own, and the paths without one wrote gigabytes from a megabyte. The writer
//! enforces this limit on every output before its first byte goes out
//! ([`crate::krm::resource_list::ResourceList::emit_to`]), so nothing is half written; the
//! paths that amplify check the same limit early, so a run past it stops before it builds
//! what it would write.

/// Output bytes allowed per input byte.
pub const PER_INPUT_BYTE: usize = 8;

/// Output bytes allowed whatever the input's size: 64 MiB.
pub const CONSTANT: usize = 64 << 20;

/// Most bytes the output ResourceList of an input of `input_len` bytes may take.
pub fn limit(input_len: usize) -> usize {
    input_len
        .saturating_mul(PER_INPUT_BYTE)
        .saturating_add(CONSTANT)
}

/// The message of a run whose output would pass [`limit`]: `what` says what got there (e.g.
/// "config injection, at ConfigMap/p-7", or "the output ResourceList").
pub fn too_large(input_len: usize, what: &str) -> String {
    format!(
        "{what} would write more than the output limit of {} bytes (8 times the input's {input_len} \
         bytes, plus 64 MiB); nothing was written. Write less per run: inject a large value \
         into fewer points, write a value once instead of aliasing it many times, or split the \
         package or the targets over several runs",
        limit(input_len)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn eight_times_the_input_plus_64_mib() {
        assert_eq!(limit(0), 64 << 20);
        assert_eq!(limit(1 << 20), (8 << 20) + (64 << 20));
        assert_eq!(limit(usize::MAX), usize::MAX);
        assert!(too_large(10, "x").contains("67108944 bytes"));
    }
}
