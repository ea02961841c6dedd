//! The stack the binary's work has, for the parts that parse CEL on it (`cel` when its
//! parser's own thread cannot start, `api` for a pipeline function's `when`): the external
//! CEL parser recurses deeply on long chains, so it runs only where the stack holds the worst
//! expression accepted. The binary records the stack before the work (`crate::run_and_exit`).

use std::sync::atomic::{AtomicUsize, Ordering};

/// Stack a run needs to parse, check and evaluate the worst CEL expression accepted (10,000
/// bytes of selections, `a.b.c...`, the deepest recursion per byte found) on the work's thread:
/// a debug build's run needed 9.3 MiB (at the smallest `ulimit -s` that ran it); a release
/// build's runs within 4 MiB. `tests/stack.rs` runs it on the smallest thread that passes this.
pub const CEL_PARSE_STACK: usize = if cfg!(debug_assertions) {
    12 << 20
} else {
    4 << 20
};

/// The work's stack in bytes (`usize::MAX`: as much as any input needs).
static WORK_STACK: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Records the stack the work has.
pub fn set_work_stack(bytes: usize) {
    WORK_STACK.store(bytes, Ordering::Relaxed);
}

/// Why CEL cannot be parsed on the work's stack, if it cannot: it is smaller than
/// [`CEL_PARSE_STACK`].
pub fn cel_parse_refused() -> Option<String> {
    let here = WORK_STACK.load(Ordering::Relaxed);
    (here < CEL_PARSE_STACK).then(|| {
        format!(
            "the {} KiB stack this run could have is less than the {} KiB the CEL parser may need (`ulimit -s` and `ulimit -v` leave no room for it)",
            here >> 10,
            CEL_PARSE_STACK >> 10
        )
    })
}
