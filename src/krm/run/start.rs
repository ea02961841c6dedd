//! What the process's standard descriptors were as it started, in safe code. The binary has
//! Rust's own `main`; before it runs, the Rust runtime reopens a closed descriptor 0, 1 or 2
//! on `/dev/null`, so a closed stdout would look like a caller's own `/dev/null` and the
//! output be lost with exit 0. [`note_closed_stdout`] runs earlier, among the program's
//! constructors (`main.rs`), and only looks.

use std::io::Write;
use std::os::fd::AsFd;
use std::os::unix::fs::{FileTypeExt, MetadataExt};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by [`note_closed_stdout`] when descriptor 1 was not open before the runtime's start.
static STDOUT_WAS_CLOSED: AtomicBool = AtomicBool::new(false);

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

/// Notes whether descriptor 1 is open, by duplicating it (`EBADF` when it is not) and closing
/// the copy: one look, nothing changed. Called before the Rust runtime's start, which would
/// put `/dev/null` in its place.
pub fn note_closed_stdout() {
    if std::io::stdout().as_fd().try_clone_to_owned().is_err() {
        STDOUT_WAS_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// What descriptor 1 was as the process started. Open, it is written nothing (a write of no
/// bytes, through a copy that reports `EBADF` rather than hide it as std's stdout does): that
/// fails only when it is open for reading only. A caller's own `/dev/null` (Python's
/// `subprocess.DEVNULL`, Rust's `Stdio::null()`, a shell's `>` or even `1<`) discards the
/// output in any open mode, and the run goes on.
pub fn stdout_state() -> Stdout {
    if STDOUT_WAS_CLOSED.load(Ordering::Relaxed) {
        return Stdout::Closed;
    }
    let Ok(copy) = std::io::stdout().as_fd().try_clone_to_owned() else {
        return Stdout::Closed;
    };
    let mut file = std::fs::File::from(copy);
    match file.write(&[]) {
        Err(e) if e.raw_os_error() == Some(EBADF) && !is_dev_null(&file) => Stdout::ReadOnly,
        _ => Stdout::Usable,
    }
}

/// `EBADF` on Linux (every architecture): a write to a descriptor not open for writing.
const EBADF: i32 = 9;

/// Whether `file` is `/dev/null`: the character device 1:3.
fn is_dev_null(file: &std::fs::File) -> bool {
    file.metadata()
        .is_ok_and(|m| m.file_type().is_char_device() && m.rdev() == DEV_NULL)
}

/// `/dev/null`'s device number as Linux encodes it (major 1, minor 3).
const DEV_NULL: u64 = (1 << 8) | 3;
