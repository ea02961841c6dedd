//! The stack-overflow guard of the binary's lean start. The Rust runtime's start, which the
//! binary skips (`start`), turns a fault in a thread's stack guard into a message; without
//! it a stack overflow ends as a bare SIGSEGV (exit 139). This guard does the same for the two
//! stacks the work can run on: the main thread's and the work thread's (see `run_and_exit`).
//!
//! Each gets an alternate signal stack (a static buffer: only written if a signal comes) and a
//! note of where its stack ends. The SIGSEGV handler says which stack overflowed, and what
//! limited it, when the faulting address lies just below one of them, and otherwise restores
//! the default action, so any other fault ends the process as before.

use std::cell::UnsafeCell;
use std::ffi::{c_int, c_void};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// Bytes of each alternate signal stack: the handler formats its message in a 64-byte buffer
/// and calls only `write` and `_exit`/`abort` (above glibc's `SIGSTKSZ`, and aarch64's 5 KiB
/// `MINSIGSTKSZ`).
const ALT_STACK_BYTES: usize = 32 << 10;

/// How far below its end a fault still counts as the stack's overflow: Linux keeps a gap of
/// 256 pages below a growing stack, and one frame may skip a page or more.
const SLACK: usize = 2 << 20;

/// Taken as the main thread's limit when `RLIMIT_STACK` is unlimited.
const UNLIMITED: usize = 1 << 34;

#[repr(C, align(16))]
struct AltStack(UnsafeCell<[u8; ALT_STACK_BYTES]>);

// SAFETY: each buffer is handed to the kernel as one thread's alternate stack (`MAIN_ALT` by
// the main thread, `WORK_ALT` by the one work thread) and never read or written by Rust code.
unsafe impl Sync for AltStack {}

static MAIN_ALT: AltStack = AltStack(UnsafeCell::new([0; ALT_STACK_BYTES]));
static WORK_ALT: AltStack = AltStack(UnsafeCell::new([0; ALT_STACK_BYTES]));

/// Set once the handler is installed: only then does the work thread set up its own stack.
static INSTALLED: AtomicBool = AtomicBool::new(false);
/// An address near the top of the main thread's stack, and the stack's soft limit in bytes.
static MAIN_TOP: AtomicUsize = AtomicUsize::new(0);
static MAIN_LIMIT: AtomicUsize = AtomicUsize::new(0);
/// The same for the work thread: the size is the one it was spawned with.
static WORK_TOP: AtomicUsize = AtomicUsize::new(0);
static WORK_SIZE: AtomicUsize = AtomicUsize::new(0);

/// Installs the guard for the main thread (called by `start::prepare`, before any other thread
/// exists): four system calls.
pub fn install() {
    MAIN_TOP.store(here(), Ordering::Relaxed);
    MAIN_LIMIT.store(stack_limit(), Ordering::Relaxed);
    use_alt_stack(&MAIN_ALT);
    // SAFETY: an all-zero `sigaction` is a valid value (no flags, empty mask) that the fields
    // set below complete.
    let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
    action.sa_sigaction = on_fault as *const () as usize;
    action.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK;
    // SAFETY: `action` is a complete `sigaction` whose handler has the SA_SIGINFO signature
    // and runs only async-signal-safe code; the old action is not asked for.
    unsafe { libc::sigaction(libc::SIGSEGV, &action, std::ptr::null_mut()) };
    INSTALLED.store(true, Ordering::Release);
}

/// Called first on the work thread, spawned with a stack of `size` bytes: the guard covers it
/// too. Does nothing when the guard is not installed (the standard start, or tests).
pub fn on_work_thread(size: usize) {
    if !INSTALLED.load(Ordering::Acquire) {
        return;
    }
    WORK_TOP.store(here(), Ordering::Relaxed);
    WORK_SIZE.store(size, Ordering::Relaxed);
    use_alt_stack(&WORK_ALT);
}

/// An address in the caller's stack frame: near the top of the stack when called at the start
/// of a thread.
#[inline(never)]
fn here() -> usize {
    let marker = 0u8;
    std::hint::black_box(&marker) as *const u8 as usize
}

/// The soft `RLIMIT_STACK` in bytes.
fn stack_limit() -> usize {
    // SAFETY: an all-zero `rlimit` is a valid value for getrlimit to overwrite.
    let mut limit: libc::rlimit = unsafe { std::mem::zeroed() };
    // SAFETY: `limit` is a writable `rlimit`.
    if unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut limit) } != 0
        || limit.rlim_cur == libc::RLIM_INFINITY
    {
        return UNLIMITED;
    }
    usize::try_from(limit.rlim_cur).unwrap_or(UNLIMITED)
}

/// Makes `stack` the calling thread's alternate signal stack.
fn use_alt_stack(stack: &'static AltStack) {
    let alt = libc::stack_t {
        ss_sp: stack.0.get().cast::<c_void>(),
        ss_flags: 0,
        ss_size: ALT_STACK_BYTES,
    };
    // SAFETY: `alt` describes a static buffer of ALT_STACK_BYTES that only this thread uses as
    // its signal stack, for the rest of the process.
    unsafe { libc::sigaltstack(&alt, std::ptr::null_mut()) };
}

/// True when `addr` lies below the stack that ends near `top` after `size` bytes, within
/// [`SLACK`] of its end.
fn overflows(addr: usize, top: usize, size: usize) -> bool {
    top != 0 && addr < top && addr >= top.saturating_sub(size.saturating_add(SLACK))
}

/// The SIGSEGV handler, on the faulting thread's alternate stack.
extern "C" fn on_fault(signum: c_int, info: *mut libc::siginfo_t, _context: *mut c_void) {
    // SAFETY: the kernel passes a valid `siginfo_t` to an SA_SIGINFO handler; for SIGSEGV it
    // holds the faulting address.
    let addr = unsafe { (*info).si_addr() } as usize;
    let (main_top, main_limit) = (
        MAIN_TOP.load(Ordering::Relaxed),
        MAIN_LIMIT.load(Ordering::Relaxed),
    );
    let (work_top, work_size) = (
        WORK_TOP.load(Ordering::Relaxed),
        WORK_SIZE.load(Ordering::Relaxed),
    );
    if overflows(addr, work_top, work_size) {
        // The work thread's stack is sized for the deepest input accepted: a bug.
        say(&[
            b"package-variant: stack overflow on the work thread (",
            kib(work_size).as_bytes(),
            b" KiB of stack); this is a bug, please report it with the input\n",
        ]);
        // SAFETY: ends the process at once, as the Rust runtime does on a stack overflow.
        unsafe { libc::abort() }
    }
    if overflows(addr, main_top, main_limit) {
        // The main thread runs the work when the stack limit is large enough, or when no
        // thread with a larger stack could be had: the limit stopped the input.
        say(&[
            b"package-variant: stack overflow: the input nests deeper than the stack limit allows (ulimit -s ",
            kib(main_limit).as_bytes(),
            b" KiB); raise it (ulimit -s 8192, the usual default, is enough for every input accepted)\n",
        ]);
        // SAFETY: `_exit` is async-signal-safe and ends the process without running anything
        // else.
        unsafe { libc::_exit(1) }
    }
    // Not a stack overflow: the default action, and the fault happens again on return.
    // SAFETY: restores the default disposition of this signal; async-signal-safe.
    unsafe { libc::signal(signum, libc::SIG_DFL) };
}

/// Writes `parts` to stderr (async-signal-safe: `write` only).
fn say(parts: &[&[u8]]) {
    for part in parts {
        // SAFETY: `part` is a live byte slice of the given length; a failed write is ignored
        // (there is nowhere else to say it).
        unsafe { libc::write(2, part.as_ptr().cast::<c_void>(), part.len()) };
    }
}

/// `bytes` in KiB as decimal text, without allocating.
fn kib(bytes: usize) -> Decimal {
    let mut d = Decimal {
        digits: [0; 20],
        start: 20,
    };
    let mut n = bytes / 1024;
    loop {
        d.start -= 1;
        d.digits[d.start] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            return d;
        }
    }
}

/// A number's decimal digits, right-aligned in a fixed buffer.
struct Decimal {
    digits: [u8; 20],
    start: usize,
}

impl Decimal {
    fn as_bytes(&self) -> &[u8] {
        &self.digits[self.start..]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_written_in_kib() {
        assert_eq!(kib(0).as_bytes(), b"0");
        assert_eq!(kib(2048 * 1024).as_bytes(), b"2048");
        assert_eq!(kib(usize::MAX).as_bytes(), b"18014398509481983");
    }

    #[test]
    fn only_faults_just_below_a_stack_are_overflows() {
        let (top, size) = (0x7fff_0000_0000, 8 << 20);
        assert!(overflows(top - size - 4096, top, size));
        assert!(overflows(top - size - SLACK, top, size));
        assert!(!overflows(top - size - SLACK - 1, top, size));
        assert!(!overflows(top + 16, top, size));
        assert!(!overflows(16, top, size), "a null pointer's fault");
        assert!(!overflows(top - 4096, 0, size), "no stack noted");
    }
}
