//! The stack the work has, and the nesting it holds: [`super::MAX_DEPTH`], or less when the
//! binary's run could only have a small stack (`krm::run::on_work_stack`).

use super::MAX_DEPTH;

/// Stack the work needs besides its nesting, and per level (parse, read as data, edit, write),
/// with a margin. Measured in a debug build on the main thread at the smallest `ulimit -s` that
/// ran it: 250 levels of block mappings 2.86 MiB (block sequences 2.0, flow mappings 1.79,
/// JSON 1.77, flow sequences, aliases, a deep functionConfig 1.51-1.54), 10 levels 111-171 KiB,
/// a set with a short CEL expression 259 KiB; in a release build every form at the limit these
/// give ran at `ulimit -s` 160 KiB-1 MiB with no thread. `tests/stack.rs` checks it on threads.
pub const STACK_BASE: usize = if cfg!(debug_assertions) {
    384 << 10
} else {
    96 << 10
};
#[doc = "See [`STACK_BASE`]."]
pub const STACK_PER_LEVEL: usize = if cfg!(debug_assertions) {
    14 << 10
} else {
    3 << 10
};

/// The stack the work has, in bytes (`usize::MAX`: enough); set by the binary's run.
static WORK_STACK: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(usize::MAX);

/// Records the stack the work has (`krm::run`): nesting is then bounded by [`levels_within`] it.
pub fn set_work_stack(bytes: usize) {
    WORK_STACK.store(bytes, std::sync::atomic::Ordering::Relaxed);
}

/// The stack the work has, in bytes (`usize::MAX`: as much as the deepest input needs).
pub fn work_stack() -> usize {
    WORK_STACK.load(std::sync::atomic::Ordering::Relaxed)
}

/// The nesting a stack of `bytes` holds, [`MAX_DEPTH`] at most; and the stack `levels` need.
pub fn levels_within(bytes: usize) -> usize {
    match bytes {
        usize::MAX => MAX_DEPTH,
        _ => (bytes.saturating_sub(STACK_BASE) / STACK_PER_LEVEL).min(MAX_DEPTH),
    }
}

/// See [`levels_within`].
pub fn stack_for(levels: usize) -> usize {
    STACK_BASE + levels * STACK_PER_LEVEL
}

/// Deepest nesting accepted in this run: [`MAX_DEPTH`], or less when the work's stack holds
/// less ([`set_work_stack`]). Every check of nesting reads it.
pub fn depth_limit() -> usize {
    levels_within(work_stack())
}

/// Why nesting deeper than [`depth_limit`] is refused: the limit, and when the stack lowered
/// it, that stack.
pub fn nesting_limit_named() -> String {
    let limit = depth_limit();
    if limit >= MAX_DEPTH {
        return format!("{limit} levels");
    }
    format!(
        "{limit} levels, the most the {} KiB stack this run could have holds (`ulimit -s` and `ulimit -v` leave no room for the {} KiB that {MAX_DEPTH} levels need)",
        work_stack() >> 10,
        stack_for(MAX_DEPTH) >> 10
    )
}
