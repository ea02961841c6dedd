//! The start of the binary's process. With the `lean-start` feature the binary begins at C's
//! `main` (`main.rs`), skipping the Rust runtime's start: [`prepare`] does the part of it the
//! function needs (SIGPIPE ignored, closed descriptors 0 and 2 reopened on `/dev/null`, a
//! stack-overflow guard) for a fraction of its cost. [`stdout_state`] is used by both starts.

use super::guard;
use std::ffi::{c_char, c_int, CStr, OsString};
use std::os::unix::ffi::OsStringExt;

/// What file descriptor 1 is as the process starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stdout {
    /// Open for writing.
    Usable,
    /// Not open (`>&-`).
    Closed,
    /// Open for reading only (`1<file`), and not `/dev/null`.
    ReadOnly,
}

impl Stdout {
    /// Why the output cannot be written, or `None` when it can. Rust's stdout takes a write
    /// that fails with `EBADF` (closed, or open read-only) as done: the output would be lost and
    /// the run exit 0 as if it had succeeded.
    pub fn problem(self) -> Option<&'static str> {
        match self {
            Stdout::Usable => None,
            Stdout::Closed => {
                Some("package-variant: stdout is closed: the output ResourceList cannot be written")
            }
            Stdout::ReadOnly => Some(
                "package-variant: stdout is open for reading only: the output ResourceList cannot be written; redirect it with > instead of <",
            ),
        }
    }
}

/// Looks at file descriptor 1 (one `fcntl`). Called before anything could open a file, which
/// would take descriptor 1 if it were closed. A caller's own `/dev/null` (Python's
/// `subprocess.DEVNULL`, Rust's `Stdio::null()`, a shell's `>` or even `1<`) discards the
/// output in any open mode, and the run goes on.
pub fn stdout_state() -> Stdout {
    // SAFETY: F_GETFL only reads the descriptor's status flags; it fails (EBADF) only when the
    // descriptor is not open.
    let flags = unsafe { libc::fcntl(1, libc::F_GETFL) };
    if flags == -1 {
        Stdout::Closed
    } else if flags & libc::O_ACCMODE == libc::O_RDONLY && !is_dev_null(1) {
        Stdout::ReadOnly
    } else {
        Stdout::Usable
    }
}

/// Whether `fd` is `/dev/null` (the character device 1:3).
fn is_dev_null(fd: c_int) -> bool {
    // SAFETY: an all-zero `stat` is a valid value for fstat to overwrite.
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `st` is a writable `stat`; `fd` is open (F_GETFL succeeded).
    if unsafe { libc::fstat(fd, &mut st) } != 0 {
        return false;
    }
    st.st_mode & libc::S_IFMT == libc::S_IFCHR
        && libc::major(st.st_rdev) == 1
        && libc::minor(st.st_rdev) == 3
}

/// The start under `lean-start`, first thing in `main`: ignores `SIGPIPE` as the Rust runtime
/// does (a reader that went away is a write error the binary reports, not a silent death),
/// reopens descriptors 0 and 2 on `/dev/null` when they are closed (as the runtime does: a
/// file opened later must not become stdin or stderr), and installs the stack-overflow guard
/// of the main thread. Descriptor 1 is only looked at: a closed stdout fails the run.
pub fn prepare() -> Stdout {
    // SAFETY: changes only the disposition of SIGPIPE, before any other thread exists.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_IGN) };
    let stdout = stdout_state();
    reopen_if_closed(0);
    reopen_if_closed(2);
    guard::install();
    stdout
}

/// Opens `/dev/null` as descriptor `fd` when `fd` is not open. Leaves every other descriptor
/// as it was (descriptor 1 stays closed if it was).
fn reopen_if_closed(fd: c_int) {
    // SAFETY: F_GETFD only reads the descriptor's flags (EBADF when it is not open).
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } != -1 {
        return;
    }
    // SAFETY: the path is a NUL-terminated string that outlives the call.
    let null = unsafe { libc::open(c"/dev/null".as_ptr(), libc::O_RDWR) };
    if null == -1 {
        // As the runtime does: no stdin or stderr to trust, and no way to say why.
        // SAFETY: ends the process; nothing is left to run.
        unsafe { libc::abort() }
    }
    if null != fd {
        // SAFETY: `null` is the descriptor just opened and `fd` a closed one: dup2 makes `fd`
        // a copy of it, and the original is closed (no other code holds it).
        unsafe {
            libc::dup2(null, fd);
            libc::close(null);
        }
    }
}

/// The arguments after the program's name.
///
/// # Safety
/// `argv` must hold `argc` pointers to NUL-terminated strings, as `main` receives them.
pub unsafe fn args(argc: c_int, argv: *const *const c_char) -> Vec<OsString> {
    (1..usize::try_from(argc).unwrap_or(0))
        // SAFETY: `i < argc`: the caller guarantees `argv` holds that many pointers.
        .map(|i| unsafe { *argv.add(i) })
        .filter(|a| !a.is_null())
        // SAFETY: each non-null pointer is a NUL-terminated string (the caller's guarantee).
        .map(|a| OsString::from_vec(unsafe { CStr::from_ptr(a) }.to_bytes().to_vec()))
        .collect()
}
